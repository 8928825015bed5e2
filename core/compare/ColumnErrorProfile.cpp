#include "core/compare/ColumnErrorProfile.h"

#include "core/compare/ImportanceErrorMetrics.h"
#include "core/imatrix/ColumnImportance.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <cmath>

namespace gguf {

Result<ColumnErrorProfile> computeColumnErrorProfile(const ModelComparison& comparison, std::size_t row, std::size_t column,
                                                     std::optional<std::size_t> expert, const std::atomic<bool>* cancelled)
{
    if (row >= comparison.rows().size() || column >= comparison.columns().size())
        return Error{"column error profile: no such cell", Error::kNoOffset, {}};
    const TensorInfo& tensor = *comparison.rows()[row].reference;
    if (!comparison.rows()[row].cells[column].ok())
        return Error{std::string(tensor.name) + ": " + comparison.rows()[row].cells[column].problem, Error::kNoOffset, {}};
    const auto columns = static_cast<std::uint64_t>(tensor.ne[0]);
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    const std::uint64_t expertElements = columns * static_cast<std::uint64_t>(tensor.ne[1]);
    if (expert && *expert >= experts)
        return Error{std::string(tensor.name) + " has " + std::to_string(experts) + " expert(s), not " + std::to_string(*expert + 1),
                     Error::kNoOffset, {}};
    ColumnErrorProfile profile;
    profile.row = row;
    profile.column = column;
    profile.expert = expert;
    profile.squaredError.assign(static_cast<std::size_t>(columns), 0.0);
    std::optional<TensorImportance> weights;
    if (const ImportanceMatrix* matrix = comparison.importance()) {
        const ImportanceEntry* entry = matrix->find(tensor.name);
        weights = tensorImportance(entry, tensor);
        if (weights) {
            profile.weightedError.assign(static_cast<std::size_t>(columns), 0.0);
            profile.importance = columnImportance(*entry, expert ? *expert : kAllExperts);
        }
    }
    std::vector<float> reference;
    std::vector<float> other;
    std::vector<float> w;
    for (const ElementRange& full : comparison.cellRanges(row, column)) {
        if (cancelled && cancelled->load(std::memory_order_relaxed))
            return Error{std::string(tensor.name) + ": column error profile cancelled", Error::kNoOffset, {}};
        ElementRange range = full;
        if (expert) {  // only the chosen expert's part of the range
            range.begin = std::max(range.begin, *expert * expertElements);
            range.end = std::min(range.end, (*expert + 1) * expertElements);
            if (range.begin >= range.end)
                continue;
        }
        // Reconstruct the whole range (a simulated column quantizes whole blocks), then use the part.
        reference.resize(static_cast<std::size_t>(full.size()));
        other.resize(reference.size());
        if (Status s = comparison.reconstruct(row, column, full, reference, other); !s)
            return s.error();
        if (weights) {
            w.resize(reference.size());
            weights->fill(full.begin, w);
        }
        for (std::uint64_t k = range.begin; k < range.end; ++k) {
            const std::size_t i = static_cast<std::size_t>(k - full.begin);
            const double r = reference[i];
            const double o = other[i];
            if (!std::isfinite(r) || !std::isfinite(o)) {
                ++profile.nonFinite;
                continue;
            }
            const double error = o - r;
            const auto c = static_cast<std::size_t>(k % columns);
            profile.squaredError[c] += error * error;
            if (weights)
                profile.weightedError[c] += double(w[i]) * (error * error);
        }
    }
    profile.valuesPerColumn = static_cast<std::uint64_t>(tensor.ne[1]) * (expert ? 1 : experts);
    if (Status s = comparison.reference().checkUnchanged(); !s)
        return s.error();
    return profile;
}

}  // namespace gguf
