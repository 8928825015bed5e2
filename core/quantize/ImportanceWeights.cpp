#include "core/quantize/ImportanceWeights.h"

#include "core/imatrix/ImportanceMatrix.h"

#include <algorithm>

namespace gguf {

Result<ImportanceWeights> ImportanceWeights::load(const std::string& path)
{
    auto loaded = ImportanceMatrix::load(path);
    if (!loaded)
        return loaded.error();
    return of(loaded.value());
}

Result<ImportanceWeights> ImportanceWeights::of(const ImportanceMatrix& matrix)
{
    const std::string& path = matrix.path();
    ImportanceWeights result;
    result.m_path = path;
    result.m_chunkCount = static_cast<std::uint32_t>(std::max<std::int64_t>(0, matrix.chunkCount()));
    if (!matrix.datasets().empty())
        result.m_dataset = matrix.datasets().front();
    for (const ImportanceEntry& stored : matrix.entries()) {
        Entry entry;
        entry.columns = static_cast<std::uint64_t>(stored.columnCount());
        entry.experts = stored.expertCount();
        // A legacy entry keeps every expert of a MoE tensor in one row; row() cuts it by the
        // tensor's row length, as llama-quantize does.
        entry.flat = stored.legacy;
        entry.weights = stored.allQuantWeights();
        if (entry.columns == 0 || entry.weights.empty())
            return Error{"imatrix entry '" + stored.name + "' holds no values", stored.sumsOffset, path};
        result.m_entries.emplace(stored.name, std::move(entry));
    }
    if (result.m_entries.empty())
        return Error{"no importance entries in this file", Error::kNoOffset, path};
    return result;
}

std::uint64_t ImportanceWeights::expertCount(std::string_view weightName, std::uint64_t columns) const
{
    const auto it = m_entries.find(weightName);
    if (it == m_entries.end())
        return 0;
    const Entry& entry = it->second;
    if (entry.flat && columns > 0 && entry.weights.size() % columns == 0)
        return entry.weights.size() / columns;
    return entry.experts;
}

Result<std::span<const float>> ImportanceWeights::row(std::string_view weightName, std::uint64_t expert, std::uint64_t columns) const
{
    const auto it = m_entries.find(weightName);
    if (it == m_entries.end())
        return std::span<const float>{};
    const Entry& entry = it->second;
    if (entry.flat && entry.columns != columns && columns > 0 && entry.weights.size() % columns == 0) {
        if (expert >= entry.weights.size() / columns)
            return Error{"imatrix entry '" + std::string(weightName) + "' has " + std::to_string(entry.weights.size() / columns)
                         + " expert(s) of " + std::to_string(columns) + " columns, no expert " + std::to_string(expert), Error::kNoOffset, m_path};
        return std::span<const float>(entry.weights.data() + expert * columns, static_cast<std::size_t>(columns));
    }
    if (entry.columns != columns)
        return Error{"imatrix entry '" + std::string(weightName) + "' has " + std::to_string(entry.columns)
                     + " columns, the tensor's rows have " + std::to_string(columns), Error::kNoOffset, m_path};
    // A dense entry serves every expert, as llama-quantize's size check (ne[0] * ne[2]) allows only
    // when ne[2] is 1; a per-expert entry must have this expert.
    if (expert >= entry.experts)
        return Error{"imatrix entry '" + std::string(weightName) + "' has " + std::to_string(entry.experts)
                     + " expert(s), no expert " + std::to_string(expert), Error::kNoOffset, m_path};
    return std::span<const float>(entry.weights.data() + expert * columns, static_cast<std::size_t>(columns));
}

}  // namespace gguf
