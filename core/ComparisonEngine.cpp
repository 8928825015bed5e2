#include "ComparisonEngine.h"

namespace gguf {

ComparisonEngine::ComparisonEngine(const ModelComparison& comparison, std::uint64_t chunkElements)
    : m_comparison(comparison), m_chunkElements(chunkElements), m_columnHistograms(comparison.columns().size())
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
        for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
            if (!comparison.rows()[r].cells[c].ok())
                continue;
            const std::uint64_t elements = comparison.cellElements(r, c);
            m_units.push_back({r, c, elements});
            m_totalElements += elements;
        }
    }
    m_unitMetrics.resize(m_units.size());
}

UnitOutcome ComparisonEngine::runUnit(std::size_t unit, const std::function<bool()>& cancelled,
                                      const std::function<void(std::uint64_t)>& rangeDone)
{
    const Unit& u = m_units[unit];
    ErrorAccumulator accumulator;
    for (const ElementRange& range : m_comparison.cellRanges(u.row, u.column, m_chunkElements)) {
        if (cancelled && cancelled())
            return {WorkOutcome::Cancelled, std::nullopt};
        if (Status s = m_comparison.accumulate(u.row, u.column, range, accumulator); !s)
            return {WorkOutcome::Failed, s.error()};
        if (rangeDone)
            rangeDone(range.size());
    }
    m_unitMetrics[unit] = accumulator.result();
    const std::lock_guard lock(m_histogramMutex);
    m_columnHistograms[u.column].merge(accumulator.histogram());
    return {};
}

ComparisonResults ComparisonEngine::results() const
{
    const std::size_t columnCount = m_comparison.columns().size();
    ComparisonResults results;
    results.cells.assign(m_comparison.rows().size(), std::vector<std::optional<ErrorMetrics>>(columnCount));
    std::vector<ErrorSums> totals(columnCount);
    results.columnTensorCounts.assign(columnCount, 0);
    // Units are in row order, so this merges each column's cells in row order.
    for (std::size_t i = 0; i < m_units.size(); ++i) {
        if (!m_unitMetrics[i])
            continue;
        const Unit& u = m_units[i];
        results.cells[u.row][u.column] = m_unitMetrics[i];
        totals[u.column].merge(m_unitMetrics[i]->sums);
        ++results.columnTensorCounts[u.column];
    }
    for (std::size_t c = 0; c < columnCount; ++c)
        results.columnTotals.push_back(ErrorAccumulator::metricsFrom(totals[c], m_columnHistograms[c]));
    return results;
}

}  // namespace gguf
