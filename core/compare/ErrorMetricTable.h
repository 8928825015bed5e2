#pragma once
// The one table of error metrics. Each row names a figure of ErrorMetrics once: its key (JSON
// member, export column), its label for people, its unit, which direction is better, how the
// figures of several parts (tensors of a layer, experts of a tensor) combine, and its column in
// the CLI's text table. The CLI, the JSON writer, the exports and the GUI read this list, so
// adding a metric is one field in ErrorMetrics, its formula in ErrorAccumulator::metricsFrom and
// one row in ErrorMetricTable.cpp.

#include "core/compare/ErrorMetrics.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace gguf {

enum class MetricCombination : std::uint8_t {
    // Recomputed from the parts' ErrorSums merged: exactly the figure of all their values together.
    FromSums,
    // The worst part's figure: percentiles need the parts' histograms, which results do not keep.
    WorstPart,
};

struct ErrorMetricInfo {
    const char* key;     // "relative_rmse"
    const char* label;   // "Relative RMSE", untranslated (the GUI translates it)
    const char* unit;    // "" or "dB"
    bool higherIsBetter;  // SQNR and cosine grow as the error shrinks
    MetricCombination combination;
    // Exactly one of these points into ErrorMetrics: counts are integers, the others doubles.
    std::uint64_t ErrorMetrics::*countField;
    double ErrorMetrics::*valueField;
    // The CLI's text column: header, printf width, precision and conversion ('e' or 'f');
    // no header: not a column there (counts, the reference's own RMS).
    const char* cliHeader;
    int cliWidth;
    int cliPrecision;
    char cliConversion;

    bool isCount() const { return countField != nullptr; }
    double valueIn(const ErrorMetrics& metrics) const
    {
        return countField ? static_cast<double>(metrics.*countField) : metrics.*valueField;
    }
    // True when `a` is a worse figure than `b` (false when either is NaN).
    bool isWorse(double a, double b) const { return higherIsBetter ? a < b : a > b; }
};

// Every metric in the JSON's member order: count, non_finite, rmse, relative_rmse, sqnr_db,
// max_abs_error, mean_abs_error, cosine_similarity, p50/p95/p99_abs_error, reference_rms.
std::span<const ErrorMetricInfo> errorMetricTable();
// The row with `key`, or nullptr.
const ErrorMetricInfo* findErrorMetric(std::string_view key);

// The metrics of several parts together, each figure combined as its row says: FromSums figures
// are those of every part's values at once (from the merged sums, merged in the parts' order),
// WorstPart figures are the worst part's. No parts: the metrics of nothing (count 0, NaNs).
ErrorMetrics combineErrorMetrics(std::span<const ErrorMetrics* const> parts);

}  // namespace gguf
