#pragma once
// The importance weights llama-quantize passes to ggml as quant_weights, per weight matrix and
// expert, as the converter looks them up row by row: a flat view of an imatrix read by
// core/imatrix (gguf::ImportanceMatrix, either format), whose quantWeights arithmetic it keeps.

#include "core/base/Result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class ImportanceMatrix;

// The importance weights for one expert (0 for a 2-D tensor) of a tensor: rowLength floats, or
// empty when the imatrix has none for it (llama-quantize then quantizes without). Rows are
// quantized by quantizeRows (Quantize.h) with these weights whenever a lookup is given.
using ImportanceLookup = std::function<std::vector<float>(std::string_view tensorName, std::size_t expert)>;


class ImportanceWeights {
public:
    static Result<ImportanceWeights> load(const std::string& path);  // GGUF or legacy .dat
    // The weights of a matrix already read (and maybe bound to a model: the same weights).
    static Result<ImportanceWeights> of(const ImportanceMatrix& matrix);

    // The weights for rows of `columns` values of `weightName`'s expert `expert` (0 for a dense
    // tensor), or an empty span when the imatrix has no entry for the name.
    // Fails when the entry does not fit: a column count other than `columns`, or too few experts.
    Result<std::span<const float>> row(std::string_view weightName, std::uint64_t expert, std::uint64_t columns) const;

    // Experts of `weightName`'s entry (1 for a dense tensor), 0 when there is no entry; a legacy
    // entry counts its rows of `columns` (the tensor's ne[0]) when they divide it.
    std::uint64_t expertCount(std::string_view weightName, std::uint64_t columns = 0) const;

    std::size_t entryCount() const { return m_entries.size(); }
    std::uint32_t chunkCount() const { return m_chunkCount; }
    const std::string& path() const { return m_path; }
    const std::string& dataset() const { return m_dataset; }  // the first, as llama-quantize records it

private:
    struct Entry {
        std::uint64_t columns = 0;
        std::uint64_t experts = 0;
        bool flat = false;           // legacy: one row of every expert, cut by the tensor's ne[0]
        std::vector<float> weights;  // experts x columns
    };
    std::string m_path;
    std::uint32_t m_chunkCount = 0;
    std::string m_dataset;
    std::map<std::string, Entry, std::less<>> m_entries;
};

}  // namespace gguf
