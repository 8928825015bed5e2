#include "compare/ErrorHeatmapView.h"

#include "compare/ErrorHeatmap.h"

#include <QLabel>

namespace {
ZoomableMatrixView::Options errorHeatmapOptions()
{
    ZoomableMatrixView::Options options;
    options.plotName = QStringLiteral("errorHeatmapPlot");
    options.aggregateName = QStringLiteral("errorAggregateCombo");
    options.scaleLabel = ErrorHeatmapView::tr("error (other − reference)");
    options.aggregateTip = ErrorHeatmapView::tr("How the errors under one screen cell are combined");
    options.aggregates = {{ErrorHeatmapView::tr("Mean error"), gguf::CellAggregate::Mean},
                          {ErrorHeatmapView::tr("Largest |error|"), gguf::CellAggregate::AbsMax}};
    options.bandsPerThread = 4;
    options.emptyText = ErrorHeatmapView::tr("Select a tensor in the table to see its error.");
    return options;
}
}  // namespace

ErrorHeatmapView::ErrorHeatmapView(JobProgressBar* progress, QWidget* parent) : ZoomableMatrixView(progress, errorHeatmapOptions(), parent) {}

bool ErrorHeatmapView::hasCell() const
{
    return m_comparison && m_row < m_comparison->rows().size() && m_comparison->cellElements(m_row, m_column) > 0;
}

void ErrorHeatmapView::setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column)
{
    m_comparison = std::move(comparison);
    m_row = row;
    m_column = column;
    // Why there is nothing to show: the cell's problem (a type without a quantizer, …).
    const QString problem = m_comparison && m_row < m_comparison->rows().size() && m_column < m_comparison->columns().size()
                                ? QString::fromStdString(m_comparison->rows()[m_row].cells[m_column].problem)
                                : QString();
    setEmptyText(problem.isEmpty() ? tr("Select a tensor in the table to see its error.") : problem);
    matrixChanged();
}

gguf::HeatmapRegion ErrorHeatmapView::extent() const
{
    return hasCell() ? gguf::errorHeatmapExtent(*m_comparison, m_row) : gguf::HeatmapRegion{};
}

ZoomableMatrixView::BandWork ErrorHeatmapView::bandWork() const
{
    return [comparison = m_comparison, row = m_row, column = m_column](const gguf::HeatmapGrid& grid, std::uint32_t first, std::uint32_t last,
                                                                      std::span<float> out, const std::atomic<bool>* cancelled) {
        return gguf::reduceErrorHeatmapRows(*comparison, row, column, grid, first, last, out, cancelled);
    };
}

QString ErrorHeatmapView::jobDescription() const
{
    return tr("Error heatmap");
}

QString ErrorHeatmapView::hoverText(double row, double column, float value, bool) const
{
    return tr("row %1, column %2: error %3").arg(row).arg(column).arg(static_cast<double>(value), 0, 'g', 7);
}
