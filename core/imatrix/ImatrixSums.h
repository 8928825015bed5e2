#pragma once
// What llama-imatrix accumulates before it saves (tools/imatrix, IMatrixCollector::m_stats): per
// weight matrix the raw sums of x^2 of its input, per column (per expert for MoE, expert after
// expert), and the token count of each expert; and the dataset names. Both file formats are
// written from it (ImatrixWriter.h), as llama-imatrix writes them, so converting a file here
// gives the bytes `llama-imatrix --in-file IN -o OUT` gives.

#include "core/imatrix/ImportanceMatrix.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gguf {

struct ImatrixSumsEntry {
    std::vector<float> values;         // expert after expert, counts.size() rows of equal length
    std::vector<std::int64_t> counts;  // tokens per expert; one value for a dense matrix
};

struct ImatrixSums {
    std::map<std::string, ImatrixSumsEntry> entries;  // ordered by name, as llama-imatrix sorts them
    std::vector<std::string> datasets;

    // llama-imatrix's chunk count after loading or collecting: the largest count over every
    // entry divided by the chunk size (m_last_chunk).
    std::int64_t lastChunk(std::int64_t chunkSize) const;
};

// The sums llama-imatrix's load_imatrix rebuilds from a file, for a run whose chunk size
// (n_ctx / n_parallel) is `chunkSize`. GGUF files keep raw sums and per-expert counts, taken as
// they are (counts rounded to whole numbers). A legacy .dat keeps (sum / count) * ncall and one
// ncall per matrix: values come back as value * chunkSize and the count as ncall * chunkSize, so
// a MoE matrix has one count for all its experts (the per-expert counts are gone). A count that
// is negative, not finite or beyond 2^40 tokens is refused, naming the matrix.
Result<ImatrixSums> sumsOf(const ImportanceMatrix& matrix, std::int64_t chunkSize);

}  // namespace gguf
