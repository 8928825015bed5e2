#pragma once
// The importance weights llama-quantize passes to ggml as quant_weights, read from a GGUF
// imatrix (llama-imatrix's default output): per weight matrix `<name>.in_sum2` (summed squared
// activations per input column, per expert) and `<name>.counts` (tokens seen, per expert); the
// weight of column i for expert e is in_sum2[e][i] / counts[e], or 1 when counts[e] is 0
// (tools/quantize/quantize.cpp, load_imatrix).
//
// A small stand-in owned by the quantizer so `convert --imatrix` works on its own; the full
// reader with validation and statistics is core/imatrix (gguf::ImportanceMatrix), which
// replaces this at integration.

#include "base/Result.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class ImportanceWeights {
public:
    static Result<ImportanceWeights> loadGguf(const std::string& path);

    // The weights for rows of `columns` values of `weightName`'s expert `expert` (0 for a dense
    // tensor), or an empty span when the imatrix has no entry for the name.
    // Fails when the entry does not fit: a column count other than `columns`, or too few experts.
    Result<std::span<const float>> row(std::string_view weightName, std::uint64_t expert, std::uint64_t columns) const;

    // Experts of `weightName`'s entry (1 for a dense tensor), 0 when there is no entry.
    std::uint64_t expertCount(std::string_view weightName) const;

    std::size_t entryCount() const { return m_entries.size(); }
    std::uint32_t chunkCount() const { return m_chunkCount; }
    const std::string& path() const { return m_path; }

private:
    struct Entry {
        std::uint64_t columns = 0;
        std::uint64_t experts = 0;
        std::vector<float> weights;  // experts x columns
    };
    std::string m_path;
    std::uint32_t m_chunkCount = 0;
    std::map<std::string, Entry, std::less<>> m_entries;
};

}  // namespace gguf
