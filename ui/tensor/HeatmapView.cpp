#include "ui/tensor/HeatmapView.h"

#include "core/gguf/RemoteRegion.h"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {
ZoomableMatrixView::Options heatmapOptions()
{
    ZoomableMatrixView::Options options;
    options.plotName = QStringLiteral("heatmapPlot");
    options.aggregateName = QStringLiteral("aggregateCombo");
    options.hoverName = QStringLiteral("hoverLabel");
    options.aggregateTip = HeatmapView::tr("How the weights under one screen cell are combined");
    options.aggregates = {{HeatmapView::tr("Mean"), gguf::CellAggregate::Mean},
                          {HeatmapView::tr("Abs max"), gguf::CellAggregate::AbsMax},
                          {HeatmapView::tr("Min"), gguf::CellAggregate::Min},
                          {HeatmapView::tr("Max"), gguf::CellAggregate::Max}};
    options.bandsPerThread = 8;
    return options;
}
}  // namespace

HeatmapView::HeatmapView(JobProgressBar* progress, QWidget* parent) : ZoomableMatrixView(progress, heatmapOptions(), parent)
{
    connect(plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const double column = plot()->xAxis->pixelToCoord(event->position().x());
        // A one-row matrix is drawn as a line: its vertical axis holds values, not rows.
        const double row = m_slice.isValid() && m_slice.slice.rowCount == 1 ? 0.0 : plot()->yAxis->pixelToCoord(event->position().y());
        if (m_slice.isValid() && column >= -0.5 && row >= -0.5 && column < m_slice.slice.rowLength() - 0.5 && row < m_slice.slice.rowCount - 0.5)
            emit cellClicked(static_cast<std::uint64_t>(std::lround(row)), static_cast<std::uint64_t>(std::lround(column)));
    });
}

void HeatmapView::setSlice(const SliceRef& slice)
{
    m_slice = slice;
    matrixChanged();
}

gguf::HeatmapRegion HeatmapView::extent() const
{
    if (!m_slice.isValid() || m_slice.slice.elementCount() == 0)
        return {};
    return {0, m_slice.slice.rowCount, 0, m_slice.slice.rowLength()};
}

ZoomableMatrixView::BandWork HeatmapView::bandWork() const
{
    return [slice = m_slice](const gguf::HeatmapGrid& grid, std::uint32_t first, std::uint32_t last, std::span<float> out,
                             const std::atomic<bool>* cancelled) { return gguf::reduceHeatmapRows(slice.slice, grid, first, last, out, cancelled); };
}

QString HeatmapView::jobDescription() const
{
    return tr("Heatmap of %1").arg(m_slice.label());
}

QString HeatmapView::cacheKey(const gguf::HeatmapGrid& grid) const
{
    const gguf::HeatmapRegion& r = grid.region;
    return QStringLiteral("heatmap|%1|%2|%3:%4x%5:%6|%7x%8|%9")
        // The file and the tensor's place in it, not the model's address: a model opened after
        // another was closed may reuse the address.
        .arg(QString::fromStdString(m_slice.model->shards()[m_slice.slice.tensor->shard]->path()) + QLatin1Char('@')
                 + QString::number(m_slice.slice.tensor->fileOffset),
             m_slice.cacheKey())
        .arg(r.rowBegin).arg(r.rowEnd).arg(r.columnBegin).arg(r.columnEnd)
        .arg(grid.rows).arg(grid.columns).arg(static_cast<int>(grid.aggregate));
}

QString HeatmapView::allZeroText() const
{
    return tr("Every weight shown is 0 (an all-zero tensor, or all-zero blocks here).");
}

QString HeatmapView::hoverText(CellSpan rows, CellSpan columns, float value) const
{
    // One weight: its value to the last digit. Several: name them all, and what the cell holds.
    const bool vector = m_slice.slice.rowCount == 1;
    const QString where = vector ? spanText(tr("element"), tr("elements"), columns)
                                 : spanText(tr("row"), tr("rows"), rows) + QStringLiteral(", ") + spanText(tr("column"), tr("columns"), columns);
    if (rows.single() && columns.single())
        return tr("%1: %2").arg(where).arg(static_cast<double>(value), 0, 'g', 9);
    return tr("%1: %2 %3").arg(where, aggregateLabel().toLower()).arg(static_cast<double>(value), 0, 'g', 7);
}

// Whole rows: the reducer dequantizes the rows under a region, whatever its columns.
std::uint64_t HeatmapView::bytesToFetch(const gguf::HeatmapRegion& region) const
{
    if (!m_slice.isValid() || !m_slice.slice.tensor || !m_slice.slice.tensor->data || region.rowEnd <= region.rowBegin)
        return 0;
    const gguf::TensorInfo& tensor = *m_slice.slice.tensor;
    const std::uint64_t rowBytes = tensor.rowBytes();
    const std::uint64_t rows = std::min(region.rowEnd, m_slice.slice.rowCount) - std::min(region.rowBegin, m_slice.slice.rowCount);
    return gguf::mappedBytesToFetch(tensor.data + (m_slice.slice.firstRow + region.rowBegin) * rowBytes, rows * rowBytes);
}
