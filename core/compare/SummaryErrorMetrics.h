#pragma once
// Model-wide figures of a comparison: per column, every computed tensor together (the CLI's
// "all compared tensors together", ComparisonResults::columnTotals, exact including the
// percentiles) and every computed tensor of one kind ("attn_q", "ffn_down", …) together, combined
// as the metric table says (combineErrorMetrics: exact sums; percentiles the worst tensor's,
// since results keep no per-tensor histograms).

#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ModelComparison.h"

#include <string>
#include <vector>

namespace gguf {

struct SummaryErrorMetrics {
    std::string kind;                      // empty: every tensor
    std::vector<std::size_t> tensorCounts;  // per column: computed tensors combined
    std::vector<ErrorMetrics> metrics;      // per column
};

// The "all tensors" row first, then one row per kind in the order kinds first appear in the rows.
std::vector<SummaryErrorMetrics> summaryErrorMetrics(const ModelComparison& comparison, const ComparisonResults& results);

}  // namespace gguf
