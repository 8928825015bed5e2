#pragma once
// `scan ... --imatrix-out OUT`: the importance matrix collected in the scan's reference pass, the
// bytes `imatrix MODEL --text-file T -o OUT --chunk C --chunks K` writes for the same text (K the
// scan's whole chunks), saving that command's own pass over the text. Only where the scan's
// chunks are llama-imatrix's: the same tokens (llama-imatrix parses no special-token text unless
// asked), the same BOS first in each chunk, and at least two chunks' tokens in the text (its own
// refusal); otherwise refused before anything runs, saying which.

#include "CliArguments.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ImatrixCollector.h"
#include "core/imatrix/ImatrixWriter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct ScanImatrixOutput {
    std::string path;
    gguf::ImatrixOutputFormat format = gguf::ImatrixOutputFormat::Gguf;
    std::string textPath;  // recorded as the dataset, as llama-imatrix records -f
    std::int64_t chunkSize = 0;
    std::unique_ptr<gguf::ImatrixCollector> collector;
};

// nullopt when --imatrix-out is not given; the output to collect, or an empty collector after
// reporting why the scan's chunks cannot be llama-imatrix's (`failed` set). `scanTokens` are the
// scan's tokens of --text-file, `scanBos` the BOS it puts first in each chunk.
std::optional<ScanImatrixOutput> scanImatrixOutputOrReport(const CliArguments& args, const gguf::Model& model,
                                                           const std::vector<std::int32_t>& scanTokens, std::int32_t scanBos,
                                                           std::int64_t chunkSize, bool& failed);

// Writes what the reference pass collected; false after reporting why not.
bool writeScanImatrixOrReport(ScanImatrixOutput& output, bool quiet);
