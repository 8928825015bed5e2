#include "core/compare/SummaryErrorMetrics.h"

#include <algorithm>

namespace gguf {

std::vector<SummaryErrorMetrics> summaryErrorMetrics(const ModelComparison& comparison, const ComparisonResults& results)
{
    const std::size_t columns = comparison.columns().size();
    std::vector<SummaryErrorMetrics> rows;
    SummaryErrorMetrics all;
    for (std::size_t c = 0; c < columns; ++c) {
        all.tensorCounts.push_back(c < results.columnTensorCounts.size() ? results.columnTensorCounts[c] : 0);
        all.metrics.push_back(c < results.columnTotals.size() ? results.columnTotals[c] : ErrorMetrics{});
    }
    rows.push_back(std::move(all));

    std::vector<std::string> kinds;
    for (const ComparisonRow& row : comparison.rows())
        if (std::find(kinds.begin(), kinds.end(), row.nameParts.kind) == kinds.end())
            kinds.push_back(row.nameParts.kind);
    for (const std::string& kind : kinds) {
        SummaryErrorMetrics summary;
        summary.kind = kind;
        for (std::size_t c = 0; c < columns; ++c) {
            std::vector<const ErrorMetrics*> parts;  // in row order, as the totals merge them
            for (std::size_t r = 0; r < comparison.rows().size() && r < results.cells.size(); ++r)
                if (comparison.rows()[r].nameParts.kind == kind && c < results.cells[r].size() && results.cells[r][c])
                    parts.push_back(&*results.cells[r][c]);
            summary.tensorCounts.push_back(parts.size());
            summary.metrics.push_back(combineErrorMetrics(parts));
        }
        rows.push_back(std::move(summary));
    }
    return rows;
}

}  // namespace gguf
