#pragma once
// Importance-weighted error metrics, beside the plain ones: with an importance matrix
// (core/imatrix) every value x_j of a weight has the weight w_j llama-quantize hands the
// quantizer for its column (and expert), and the figures are
//   weighted squared error  E_w = sum_j w_j (x_j - q_j)^2   (what the importance-aware quantizers minimise)
//   relative weighted error E_w / sum_j w_j x_j^2
// Their sums live in ErrorSums, so they combine over tensors, layers, experts and the whole model
// exactly like the plain figures (combineErrorMetrics, ComparisonResults::columnTotals).
// They are a table of their own, not rows of errorMetricTable(): a comparison without an
// importance matrix keeps exactly its columns and JSON members.

#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ErrorMetrics.h"
#include "core/gguf/TensorInfo.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gguf {

struct ImportanceEntry;

// The two figures from the weighted sums (NaN when weightedCount is 0).
void setWeightedMetrics(ErrorMetrics& metrics, const ErrorSums& sums);

// weighted_squared_error, relative_weighted_error: same row type as errorMetricTable().
std::span<const ErrorMetricInfo> importanceMetricTable();
void writeImportanceMetricsJson(JsonWriter& json, const ErrorMetrics& metrics);  // members of an open object

// One tensor's importance, ready to weigh its elements in storage order.
struct TensorImportance {
    std::vector<float> weights;        // experts x columns: quantWeights(e) one after the other
    std::uint64_t columns = 0;         // ne[0]
    std::uint64_t expertElements = 0;  // ne[0] * ne[1]
    std::size_t experts = 0;           // ne[2]

    // The weight of each element from `firstElement` on, into `out`.
    void fill(std::uint64_t firstElement, std::span<float> out) const;
};

// nullopt when there is no entry or it does not fit the tensor (columns != ne[0], or not
// ne[0] x ne[2] values, or a 4-D tensor): such a tensor gets no weighted figures.
std::optional<TensorImportance> tensorImportance(const ImportanceEntry* entry, const TensorInfo& tensor);

}  // namespace gguf
