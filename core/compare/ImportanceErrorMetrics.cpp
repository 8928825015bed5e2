#include "core/compare/ImportanceErrorMetrics.h"

#include "core/imatrix/ImportanceMatrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gguf {

void setWeightedMetrics(ErrorMetrics& m, const ErrorSums& s)
{
    if (s.weightedCount == 0)
        return;
    m.weightedSquaredError = s.sumWeightedSquaredError;
    if (s.sumWeightedSquaredError == 0.0)
        m.relativeWeightedError = 0.0;
    else
        m.relativeWeightedError = s.sumWeightedReferenceSquared > 0.0 ? s.sumWeightedSquaredError / s.sumWeightedReferenceSquared
                                                                      : std::numeric_limits<double>::infinity();
}

namespace {

// The weighted sums of the pairs into `s` and, when given, into `alsoInto` too (one pass for a
// whole and its part). The sums run in locals: through the two pointers, which may alias, every
// add would go through memory. Each is still one sum in element order.
void addWeightedSums(ErrorSums& s, ErrorSums* alsoInto, std::span<const float> reference, std::span<const float> other,
                     std::span<const float> weights)
{
    const std::size_t n = std::min({reference.size(), other.size(), weights.size()});
    std::uint64_t count = 0;
    double error = s.sumWeightedSquaredError;
    double norm = s.sumWeightedReferenceSquared;
    double partError = alsoInto ? alsoInto->sumWeightedSquaredError : 0.0;
    double partNorm = alsoInto ? alsoInto->sumWeightedReferenceSquared : 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = reference[i];
        const double o = other[i];
        const double w = weights[i];
        if (!std::isfinite(r) || !std::isfinite(o) || !std::isfinite(w))
            continue;
        const double difference = o - r;
        const double weightedError = w * (difference * difference);
        const double weightedReference = w * (r * r);
        ++count;
        error += weightedError;
        norm += weightedReference;
        partError += weightedError;
        partNorm += weightedReference;
    }
    s.weightedCount += count;
    s.sumWeightedSquaredError = error;
    s.sumWeightedReferenceSquared = norm;
    if (alsoInto) {
        alsoInto->weightedCount += count;
        alsoInto->sumWeightedSquaredError = partError;
        alsoInto->sumWeightedReferenceSquared = partNorm;
    }
}

}  // namespace

void ErrorAccumulator::addWeighted(std::span<const float> reference, std::span<const float> other, std::span<const float> weights)
{
    // The plain figures exactly as add() makes them; the weighted sums come on top.
    add(reference, other);
    addWeightedSums(m_sums, nullptr, reference, other, weights);
}

void ErrorAccumulator::addWeightedOnly(std::span<const float> reference, std::span<const float> other, std::span<const float> weights)
{
    addWeightedSums(m_sums, nullptr, reference, other, weights);
}

void ErrorAccumulator::addWeightedPart(ErrorAccumulator& part, std::span<const float> reference, std::span<const float> other,
                                       std::span<const float> weights)
{
    // The part's plain sums on the same lane kernel as a cell's, so an expert's figures are the
    // ones a one-expert cell computes; parts keep no histogram (results keep none per expert).
    part.addLanes(reference, other, nullptr);
    addWeightedSums(m_sums, &part.m_sums, reference, other, weights);
}

namespace {

using M = ErrorMetrics;

constexpr ErrorMetricInfo kImportanceMetrics[] = {
    {"weighted_squared_error", "Importance-weighted squared error", "", false, MetricCombination::FromSums, nullptr,
     &M::weightedSquaredError, "w_sq_err", 11, 4, 'e'},
    {"relative_weighted_error", "Relative weighted error", "", false, MetricCombination::FromSums, nullptr,
     &M::relativeWeightedError, "rel_w_err", 11, 4, 'e'},
};

}  // namespace

std::span<const ErrorMetricInfo> importanceMetricTable()
{
    return kImportanceMetrics;
}

void writeImportanceMetricsJson(JsonWriter& json, const ErrorMetrics& m)
{
    for (const ErrorMetricInfo& metric : kImportanceMetrics) {
        json.key(metric.key);
        json.value(m.*metric.valueField);
    }
}

void TensorImportance::fill(std::uint64_t firstElement, std::span<float> out) const
{
    // A row at a time: one division per row, not per element.
    std::uint64_t k = firstElement;
    std::size_t i = 0;
    while (i < out.size()) {
        const std::uint64_t expert = k / expertElements;
        const std::uint64_t column = k % columns;
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size() - i, columns - column));
        const float* row = weights.data() + expert * columns + column;
        std::copy(row, row + n, out.begin() + static_cast<std::ptrdiff_t>(i));
        i += n;
        k += n;
    }
}

std::optional<TensorImportance> tensorImportance(const ImportanceEntry* entry, const TensorInfo& tensor)
{
    if (!entry || tensor.ne[3] != 1 || tensor.ne[0] <= 0 || tensor.ne[1] <= 0)
        return std::nullopt;
    const auto columns = static_cast<std::uint64_t>(tensor.ne[0]);
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    if (entry->columnCount() != columns || entry->expertCount() != experts)
        return std::nullopt;
    TensorImportance importance;
    importance.weights = entry->allQuantWeights();
    importance.columns = columns;
    importance.expertElements = columns * static_cast<std::uint64_t>(tensor.ne[1]);
    importance.experts = static_cast<std::size_t>(experts);
    return importance;
}

}  // namespace gguf
