#include "ui/compare/ErrorHeatmapView.h"

#include "core/compare/ErrorHeatmap.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/session/ComparisonColumnTitle.h"

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

ErrorHeatmapView::ErrorHeatmapView(JobProgressBar* progress, QWidget* parent) : ZoomableMatrixView(progress, errorHeatmapOptions(), parent)
{
    addPlotExport(plot(), [this]() { return exportTitle(); });
}

// "Error of blk.0.ffn_down_exps.weight, expert 3 (mean error per cell): Q4_K_M against the reference …".
QString ErrorHeatmapView::exportTitle() const
{
    if (!hasCell())
        return tr("Error heatmap");
    const gguf::TensorInfo& tensor = *m_comparison->rows()[m_row].reference;
    QString what = tr("Error of %1").arg(QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size())));
    if (rowsPerExpert() > 0)
        what += m_expert ? tr(", expert %1").arg(*m_expert) : tr(", all experts");
    return tr("%1 (%2 per cell): %3").arg(what, aggregateLabel().toLower(), comparisonSubject(*m_comparison, {m_column}));
}

QString ErrorHeatmapView::allZeroText() const
{
    return tr("No error here: the other file's values equal the reference's.");
}

bool ErrorHeatmapView::hasCell() const
{
    return m_comparison && m_row < m_comparison->rows().size() && m_comparison->cellElements(m_row, m_column) > 0;
}

std::uint64_t ErrorHeatmapView::rowsPerExpert() const
{
    if (!m_comparison || m_row >= m_comparison->rows().size())
        return 0;
    const gguf::TensorInfo& tensor = *m_comparison->rows()[m_row].reference;
    return tensor.nDims == 3 && tensor.ne[2] > 1 && tensor.ne[1] > 0 ? static_cast<std::uint64_t>(tensor.ne[1]) : 0;
}

void ErrorHeatmapView::setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column,
                               std::optional<std::uint64_t> expert)
{
    m_comparison = std::move(comparison);
    m_row = row;
    m_column = column;
    m_expert.reset();
    if (const std::uint64_t rows = rowsPerExpert(); rows > 0 && expert && *expert < errorHeatmapExtentRows() / rows)
        m_expert = expert;
    // Why there is nothing to show: the cell's problem (a type without a quantizer, …).
    const QString problem = m_comparison && m_row < m_comparison->rows().size() && m_column < m_comparison->columns().size()
                                ? QString::fromStdString(m_comparison->rows()[m_row].cells[m_column].problem)
                                : QString();
    setEmptyText(problem.isEmpty() ? tr("Select a tensor in the table to see its error.") : problem);
    matrixChanged();
    if (!m_expert)
        setRowBoundaries(rowsPerExpert());
}

std::uint64_t ErrorHeatmapView::errorHeatmapExtentRows() const
{
    return m_comparison && m_row < m_comparison->rows().size() ? gguf::errorHeatmapExtent(*m_comparison, m_row).rowEnd : 0;
}

gguf::HeatmapRegion ErrorHeatmapView::extent() const
{
    if (!hasCell())
        return {};
    gguf::HeatmapRegion whole = gguf::errorHeatmapExtent(*m_comparison, m_row);
    if (m_expert)
        whole.rowEnd = rowsPerExpert();  // one expert's rows, numbered from 0 as on the Experts page
    return whole;
}

ZoomableMatrixView::BandWork ErrorHeatmapView::bandWork() const
{
    // An expert's rows are a run of the flattened tensor's: the same grid, moved down.
    const std::uint64_t offset = m_expert ? *m_expert * rowsPerExpert() : 0;
    return [comparison = m_comparison, row = m_row, column = m_column, offset](const gguf::HeatmapGrid& grid, std::uint32_t first,
                                                                              std::uint32_t last, std::span<float> out,
                                                                              const std::atomic<bool>* cancelled) {
        gguf::HeatmapGrid shifted = grid;
        shifted.region.rowBegin += offset;
        shifted.region.rowEnd += offset;
        return gguf::reduceErrorHeatmapRows(*comparison, row, column, shifted, first, last, out, cancelled);
    };
}

QString ErrorHeatmapView::jobDescription() const
{
    return m_expert ? tr("Error heatmap of expert %1").arg(*m_expert) : tr("Error heatmap");
}

QString ErrorHeatmapView::hoverText(CellSpan rows, CellSpan columns, float value) const
{
    const QString columnText = spanText(tr("column"), tr("columns"), columns);
    const QString error = rows.single() && columns.single() ? tr("error %1").arg(static_cast<double>(value), 0, 'g', 7)
                                                            : tr("%1 error %2").arg(aggregateLabel().toLower()).arg(static_cast<double>(value), 0, 'g', 7);
    const std::uint64_t perExpert = rowsPerExpert();
    if (perExpert > 0 && m_expert)
        return tr("expert %1, %2, %3: %4").arg(*m_expert).arg(spanText(tr("row"), tr("rows"), rows), columnText, error);
    // A flattened expert tensor: rows counted within their expert; a cell across an expert
    // boundary names both ends.
    if (perExpert > 0) {
        const std::uint64_t firstExpert = rows.first / perExpert;
        const std::uint64_t lastExpert = rows.last / perExpert;
        const QString rowText = firstExpert == lastExpert
                                    ? tr("expert %1, %2").arg(firstExpert).arg(spanText(tr("row"), tr("rows"), {rows.first % perExpert, rows.last % perExpert}))
                                    : tr("expert %1 row %2 \u2013 expert %3 row %4").arg(firstExpert).arg(rows.first % perExpert).arg(lastExpert).arg(rows.last % perExpert);
        return tr("%1, %2: %3").arg(rowText, columnText, error);
    }
    return tr("%1, %2: %3").arg(spanText(tr("row"), tr("rows"), rows), columnText, error);
}
