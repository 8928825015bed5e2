// `imatrix MODEL --text-file T -o OUT [--chunk N] [--chunks N] [--process-output]
// [--min-expert-tokens N]`: an importance matrix computed from the pass here, as
// `llama-imatrix -m MODEL -f T -o OUT -c N -b N --chunks N` computes it (one sequence per
// batch), written in either of its formats. Progress on stderr; the output is written only when
// the run completes (a temporary file renamed into place), so an interrupted run leaves nothing.

#include "Commands.h"

#include "ActivationOption.h"
#include "ImatrixOutputFormat.h"
#include "ModelOpening.h"
#include "TokenInput.h"
#include "app/threads/ParallelRows.h"
#include "core/forward/ForwardPass.h"
#include "core/imatrix/ImatrixComputation.h"
#include "core/imatrix/ImatrixWriter.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace {

// llama-imatrix's chunk size when it is given no -c: n_ctx 512.
constexpr std::int64_t kDefaultChunk = 512;

// A whole-number option from `least` to `most`; nullopt after reporting it.
std::optional<std::int64_t> wholeNumberOrReport(const CliArguments& args, const char* name, std::int64_t fallback, std::int64_t least,
                                                std::int64_t most)
{
    const auto given = args.value(name);
    if (!given)
        return fallback;
    char* end = nullptr;
    const long long n = std::strtoll(given->c_str(), &end, 10);
    if (given->empty() || *end != '\0' || n < least || n > most) {
        reportFailure(std::string(name) + " must be a whole number from " + std::to_string(least) + " to " + std::to_string(most), 2);
        return std::nullopt;
    }
    return n;
}

std::string expertList(const std::vector<gguf::UnderRoutedExpert>& experts)
{
    std::string text;
    for (std::size_t i = 0; i < experts.size() && i < 8; ++i)
        text += std::string(i ? ", " : "") + shown(experts[i].tensor) + " expert " + std::to_string(experts[i].expert) + " ("
              + std::to_string(experts[i].tokens) + ")";
    if (experts.size() > 8)
        text += ", ... (" + std::to_string(experts.size()) + " in all)";
    return text;
}

}  // namespace

int runImatrixComputation(const CliArguments& args)
{
    if (args.positionals.size() != 1 || !args.has("-o"))
        return reportFailure("usage: gguf-explorer-cli imatrix MODEL --text-file T -o OUT.gguf|OUT.dat [--chunk N] [--chunks N]", 2);
    const std::string output = *args.value("-o");
    gguf::ImatrixOutputFormat format = gguf::ImatrixOutputFormat::Gguf;
    if (!imatrixOutputFormatOrReport(args, output, format))
        return 2;
    gguf::ImatrixRunOptions options;
    const auto chunk = wholeNumberOrReport(args, "--chunk", kDefaultChunk, 2, gguf::kMaxForwardTokens);
    const auto chunks = wholeNumberOrReport(args, "--chunks", -1, 1, 1 << 30);
    const auto fewest = wholeNumberOrReport(args, "--min-expert-tokens", 0, 0, std::int64_t{1} << 40);
    const auto arithmetic = passArithmeticOrReport(args);
    if (!chunk || !chunks || !fewest || !arithmetic)
        return 2;
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    const std::string textPath = *args.value("--text-file");
    const auto tokens = tokenizeTextFileOrReport(*model, textPath, args.has("--parse-special"));
    if (!tokens)
        return 2;
    options.chunkSize = *chunk;
    options.chunkLimit = *chunks;
    options.bosToken = gguf::imatrixChunkBos(*model);
    options.processOutput = args.has("--process-output");
    options.dataset = textPath;  // llama-imatrix records the -f path as given
    options.activations = arithmetic->activations;
    options.kvCache = arithmetic->kvCache;
    options.executor = &gguf::ParallelRows::shared();
    const bool quiet = args.has("--quiet");
    const bool terminal = ::isatty(fileno(stderr)) != 0;
    const auto start = std::chrono::steady_clock::now();
    options.progress = [&](std::int64_t done, std::int64_t total) {
        // A terminal sees one line rewritten; a log a line per tenth of the run.
        if (quiet || (!terminal && done != total && done % std::max<std::int64_t>(1, total / 10) != 0))
            return;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "%sgguf-explorer-cli: imatrix: chunk %lld of %lld (%.1f s, ETA %.0f s)%s", terminal ? "\r" : "",
                     static_cast<long long>(done), static_cast<long long>(total), seconds,
                     seconds / static_cast<double>(done) * static_cast<double>(total - done), terminal && done != total ? "" : "\n");
    };
    auto result = gguf::computeImatrix(*model, *tokens, options);
    if (!result)
        return reportFailure(result.error().toString());
    const auto unvisited = gguf::underRoutedExperts(result->sums, 1);
    if (*fewest > 0) {
        const auto few = gguf::underRoutedExperts(result->sums, *fewest);
        if (!few.empty())
            return reportFailure(std::to_string(few.size()) + " expert matrices got fewer than " + std::to_string(*fewest)
                                 + " tokens (--min-expert-tokens); nothing written: " + expertList(few));
    }
    auto notes = gguf::writeImatrix(result->sums, result->chunkSize, format, output);
    if (!notes)
        return reportFailure("cannot write " + shown(output) + ": " + notes.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    if (!unvisited.empty())
        std::fprintf(stderr, "gguf-explorer-cli: note: %zu expert matrices got no tokens (their importance is unknown; llama-quantize weighs them 1): %s\n",
                     unvisited.size(), expertList(unvisited).c_str());
    if (!notes->perExpertCountsDropped.empty())
        std::fprintf(stderr, "gguf-explorer-cli: note: the .dat format keeps one ncall per matrix: the per-expert token counts of %zu matrices are not kept\n",
                     notes->perExpertCountsDropped.size());
    std::fprintf(stderr, "gguf-explorer-cli: %lld chunks of %lld tokens (%s; %s), PPL over the second halves %.4f\n",
                 static_cast<long long>(result->chunks), static_cast<long long>(result->chunkSize),
                 options.bosToken >= 0 ? "BOS first in each" : "no BOS", passArithmeticText(*arithmetic).c_str(), result->perplexity);
    std::fprintf(stderr, "gguf-explorer-cli: wrote %s (%s, %zu entries, chunk size %lld)\n", shown(output).c_str(),
                 format == gguf::ImatrixOutputFormat::Gguf ? "GGUF" : "legacy .dat", result->sums.entries.size(),
                 static_cast<long long>(result->chunkSize));
    return 0;
}
