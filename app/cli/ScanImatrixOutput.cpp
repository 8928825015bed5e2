#include "ScanImatrixOutput.h"

#include "ImatrixOutputFormat.h"
#include "ModelOpening.h"
#include "TokenInput.h"
#include "core/imatrix/ImatrixComputation.h"

#include <cstdio>

std::optional<ScanImatrixOutput> scanImatrixOutputOrReport(const CliArguments& args, const gguf::Model& model,
                                                           const std::vector<std::int32_t>& scanTokens, std::int32_t scanBos,
                                                           std::int64_t chunkSize, bool& failed)
{
    failed = false;
    const auto path = args.value("--imatrix-out");
    if (!path)
        return std::nullopt;
    const auto refuse = [&](const std::string& why) {
        reportFailure("--imatrix-out: " + why, 2);
        failed = true;
        return ScanImatrixOutput{};
    };
    if (!args.has("--text-file"))
        return refuse("llama-imatrix reads a text: give --text-file, not --tokens");
    ScanImatrixOutput out;
    out.path = *path;
    out.textPath = *args.value("--text-file");
    out.chunkSize = chunkSize;
    if (!imatrixOutputFormatOrReport(args, out.path, out.format)) {
        failed = true;
        return ScanImatrixOutput{};
    }
    // llama-imatrix tokenizes special-token text as plain text; the scan, as llama-perplexity, parses it.
    const auto plain = tokenizeTextFileOrReport(model, out.textPath, false);
    if (!plain) {
        failed = true;
        return ScanImatrixOutput{};
    }
    if (*plain != scanTokens)
        return refuse("the text spells special tokens, which the scan parses and llama-imatrix does not (without --parse-special): "
                      "their chunks differ; run imatrix on its own");
    if (const std::int32_t bos = gguf::imatrixChunkBos(model); bos != scanBos)
        return refuse("the scan puts " + (scanBos >= 0 ? "token " + std::to_string(scanBos) : std::string("nothing")) + " first in each chunk, llama-imatrix "
                      + (bos >= 0 ? "token " + std::to_string(bos) : std::string("nothing"))
                      + " (the model's tokenizer does not add its BOS): their chunks differ; run imatrix on its own");
    if (static_cast<std::int64_t>(scanTokens.size()) < 2 * chunkSize)
        return refuse("the text gives " + std::to_string(scanTokens.size()) + " tokens; llama-imatrix needs at least two chunks' ("
                      + std::to_string(2 * chunkSize) + ")");
    out.collector = std::make_unique<gguf::ImatrixCollector>();
    return out;
}

bool writeScanImatrixOrReport(ScanImatrixOutput& output, bool quiet)
{
    if (gguf::Status collected = output.collector->status(); !collected) {
        reportFailure("--imatrix-out: " + collected.error().toString());
        return false;
    }
    gguf::ImatrixSums sums = output.collector->takeSums();
    sums.datasets.push_back(output.textPath);
    const std::size_t entries = sums.entries.size();
    const std::int64_t chunks = sums.lastChunk(output.chunkSize);
    auto notes = gguf::writeImatrix(sums, output.chunkSize, output.format, output.path);
    if (!notes) {
        reportFailure("cannot write " + shown(output.path) + ": " + notes.error().toString());
        return false;
    }
    if (!notes->perExpertCountsDropped.empty())
        std::fprintf(stderr, "imatrix: note: the .dat format keeps one ncall per matrix: the per-expert token counts of %zu matrices are not kept\n",
                     notes->perExpertCountsDropped.size());
    if (!quiet)
        std::fprintf(stderr, "imatrix: %s from the reference pass (%zu entries, %lld chunks of %lld), as imatrix --chunk %lld --chunks %lld writes it\n",
                     shown(output.path).c_str(), entries, static_cast<long long>(chunks), static_cast<long long>(output.chunkSize),
                     static_cast<long long>(output.chunkSize), static_cast<long long>(chunks));
    return true;
}
