// `imatrix FILE -o OUT [--chunk N] [--output-format gguf|dat]`: the matrix written again in
// either of llama-imatrix's formats, as `llama-imatrix --in-file FILE -o OUT -c N` writes it.
// What the output cannot keep (the .dat format's lost per-expert counts, experts with no tokens)
// is said on stderr.

#include "Commands.h"
#include "ImatrixOutputFormat.h"
#include "ModelOpening.h"
#include "core/imatrix/ImatrixSums.h"
#include "core/imatrix/ImatrixWriter.h"

#include <cstdio>
#include <cstdlib>

namespace {

// llama-imatrix's chunk size when it is given no -c: n_ctx 512.
constexpr std::int64_t kLlamaImatrixDefaultChunk = 512;

std::string someNames(const std::vector<std::string>& names)
{
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i)
        text += (i ? ", " : "") + shown(names[i]);
    if (names.size() > 3)
        text += ", ... (" + std::to_string(names.size()) + " in all)";
    return text;
}

void warn(const std::string& message) { std::fprintf(stderr, "gguf-explorer-cli: note: %s\n", message.c_str()); }

}  // namespace

bool imatrixOutputFormatOrReport(const CliArguments& args, const std::string& output, gguf::ImatrixOutputFormat& format)
{
    format = gguf::imatrixFormatForPath(output);
    if (const auto named = args.value("--output-format")) {
        if (*named != "gguf" && *named != "dat") {
            reportFailure("--output-format must be gguf or dat", 2);
            return false;
        }
        format = *named == "dat" ? gguf::ImatrixOutputFormat::LegacyDat : gguf::ImatrixOutputFormat::Gguf;
    }
    return true;
}

int runImatrixConversion(const CliArguments& args, const gguf::ImportanceMatrix& matrix)
{
    const std::string output = *args.value("-o");
    gguf::ImatrixOutputFormat format = gguf::ImatrixOutputFormat::Gguf;
    if (!imatrixOutputFormatOrReport(args, output, format))
        return 2;
    std::int64_t chunk = matrix.chunkSize() > 0 ? matrix.chunkSize() : kLlamaImatrixDefaultChunk;
    if (const auto given = args.value("--chunk")) {
        char* end = nullptr;
        const long long n = std::strtoll(given->c_str(), &end, 10);
        if (given->empty() || *end != '\0' || n < 1 || n > (1 << 20))
            return reportFailure("--chunk must be a whole number of tokens from 1 to 1048576", 2);
        chunk = n;
    } else if (matrix.chunkSize() <= 0) {
        warn("the .dat format does not record its chunk size; the counts assume llama-imatrix's default of "
             + std::to_string(kLlamaImatrixDefaultChunk) + " tokens (give the run's -c as --chunk N)");
    } else if (matrix.chunkSize() > (1 << 20)) {
        return reportFailure("the matrix records a chunk size of " + std::to_string(matrix.chunkSize())
                                 + " tokens; give one from 1 to 1048576 with --chunk N",
                             2);
    }
    auto sums = gguf::sumsOf(matrix, chunk);
    if (!sums)
        return reportFailure(sums.error().toString());
    auto notes = gguf::writeImatrix(*sums, chunk, format, output);
    if (!notes)
        return reportFailure("cannot write " + shown(output) + ": " + notes.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    if (matrix.format() == gguf::ImatrixFormat::LegacyDat && format == gguf::ImatrixOutputFormat::Gguf) {
        std::vector<std::string> merged;
        for (const gguf::ImportanceEntry& e : matrix.entries())
            if (e.name.find("_exps.") != std::string::npos)  // llama.cpp's name for a matrix of experts
                merged.push_back(e.name);
        if (!merged.empty())
            warn("the .dat input has no per-expert token counts: " + std::to_string(merged.size())
                 + " expert matrices are written as one row with one count for all experts, as llama-imatrix does: "
                 + someNames(merged));
    }
    if (!notes->perExpertCountsDropped.empty())
        warn("the .dat format keeps one ncall per matrix: the per-expert token counts of " + std::to_string(notes->perExpertCountsDropped.size())
             + " matrices are not kept (" + someNames(notes->perExpertCountsDropped) + ")");
    if (!notes->skippedNoData.empty())
        warn(std::to_string(notes->skippedNoData.size()) + " matrices had no tokens and are left out of the .dat, as llama-imatrix does: "
             + someNames(notes->skippedNoData));
    if (!notes->partialData.empty())
        warn(std::to_string(notes->partialData.size()) + " matrices have experts that got no tokens"
             + (format == gguf::ImatrixOutputFormat::LegacyDat ? " (stored as 1, as llama-imatrix does): " : ": ")
             + someNames(notes->partialData));
    std::fprintf(stderr, "gguf-explorer-cli: wrote %s (%s, %zu entries, chunk size %lld)\n", shown(output).c_str(),
                 format == gguf::ImatrixOutputFormat::Gguf ? "GGUF" : "legacy .dat", sums->entries.size(), static_cast<long long>(chunk));
    return 0;
}
