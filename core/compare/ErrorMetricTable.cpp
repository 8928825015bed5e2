#include "core/compare/ErrorMetricTable.h"

#include <algorithm>
#include <vector>

namespace gguf {

namespace {

using C = MetricCombination;
using M = ErrorMetrics;

constexpr ErrorMetricInfo count(const char* key, const char* label, std::uint64_t M::*field)
{
    return {key, label, "", false, C::FromSums, field, nullptr, nullptr, 0, 0, 'e'};
}

constexpr ErrorMetricInfo figure(const char* key, const char* label, const char* unit, bool higherIsBetter, C combination,
                                 double M::*field, const char* cliHeader, int cliWidth, int cliPrecision, char cliConversion)
{
    return {key, label, unit, higherIsBetter, combination, nullptr, field, cliHeader, cliWidth, cliPrecision, cliConversion};
}

constexpr ErrorMetricInfo kMetrics[] = {
    count("count", "Values compared", &M::count),
    count("non_finite", "Non-finite pairs", &M::nonFiniteCount),
    figure("rmse", "RMSE", "", false, C::FromSums, &M::rmse, "rmse", 11, 4, 'e'),
    figure("relative_rmse", "Relative RMSE", "", false, C::FromSums, &M::relativeRmse, "rel_rmse", 10, 4, 'e'),
    figure("sqnr_db", "SQNR (dB)", "dB", true, C::FromSums, &M::sqnrDb, "sqnr_dB", 8, 2, 'f'),
    figure("max_abs_error", "Max abs error", "", false, C::FromSums, &M::maxAbsError, "max_abs", 11, 4, 'e'),
    figure("mean_abs_error", "Mean abs error", "", false, C::FromSums, &M::meanAbsError, "mean_abs", 11, 4, 'e'),
    figure("cosine_similarity", "Cosine similarity", "", true, C::FromSums, &M::cosineSimilarity, "cosine", 12, 9, 'f'),
    figure("p50_abs_error", "p50 abs error", "", false, C::WorstPart, &M::p50AbsError, "p50_abs", 11, 4, 'e'),
    figure("p95_abs_error", "p95 abs error", "", false, C::WorstPart, &M::p95AbsError, "p95_abs", 11, 4, 'e'),
    figure("p99_abs_error", "p99 abs error", "", false, C::WorstPart, &M::p99AbsError, "p99_abs", 11, 4, 'e'),
    figure("reference_rms", "Reference RMS", "", false, C::FromSums, &M::referenceRms, nullptr, 0, 0, 'e'),
};

constexpr bool tableIsWellFormed()
{
    for (const ErrorMetricInfo& m : kMetrics) {
        const bool oneField = (m.countField == nullptr) != (m.valueField == nullptr);
        const bool cliColumn = !m.cliHeader || (m.cliWidth > 0 && (m.cliConversion == 'e' || m.cliConversion == 'f'));
        // Counts are summed, never "worst".
        if (!oneField || !cliColumn || (m.countField && m.combination != C::FromSums))
            return false;
    }
    return true;
}
static_assert(tableIsWellFormed(), "each metric reads one field; CLI columns need a width and a conversion");

}  // namespace

std::span<const ErrorMetricInfo> errorMetricTable()
{
    return kMetrics;
}

const ErrorMetricInfo* findErrorMetric(std::string_view key)
{
    for (const ErrorMetricInfo& metric : kMetrics)
        if (key == metric.key)
            return &metric;
    return nullptr;
}

ErrorMetrics combineErrorMetrics(std::span<const ErrorMetrics* const> parts)
{
    ErrorSums sums;
    for (const ErrorMetrics* part : parts)
        sums.merge(part->sums);
    ErrorMetrics combined = ErrorAccumulator::metricsFrom(sums, AbsErrorHistogram{});
    for (const ErrorMetricInfo& metric : kMetrics) {
        if (metric.combination != C::WorstPart)
            continue;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const double value = parts[i]->*metric.valueField;
            if (i == 0 || metric.isWorse(value, combined.*metric.valueField))
                combined.*metric.valueField = value;
        }
    }
    return combined;
}

// ---- shared renderings (ErrorMetrics.h) -------------------------------------------------------

const std::vector<std::string>& errorMetricNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> keys;
        for (const ErrorMetricInfo& metric : kMetrics)
            keys.emplace_back(metric.key);
        return keys;
    }();
    return names;
}

std::vector<double> errorMetricValues(const ErrorMetrics& m)
{
    std::vector<double> values;
    values.reserve(std::size(kMetrics));
    for (const ErrorMetricInfo& metric : kMetrics)
        values.push_back(metric.valueIn(m));
    return values;
}

void writeErrorMetricsJson(JsonWriter& json, const ErrorMetrics& m)
{
    for (const ErrorMetricInfo& metric : kMetrics) {
        json.key(metric.key);
        if (metric.isCount())
            json.value(m.*metric.countField);
        else
            json.value(m.*metric.valueField);
    }
}

}  // namespace gguf
