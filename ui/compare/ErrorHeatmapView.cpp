#include "compare/ErrorHeatmapView.h"

#include "common/MatrixPlot.h"
#include "common/PlotPalette.h"

#include "session/BackgroundJob.h"
#include "common/DivergingGradient.h"
#include "ErrorHeatmap.h"
#include "common/JobProgressBar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {
constexpr int kZoomDebounceMs = 200;
constexpr std::uint32_t kMaxCells = 2048;
}  // namespace

ErrorHeatmapView::ErrorHeatmapView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_plot(new QCustomPlot(this)), m_aggregate(new QComboBox(this)), m_hover(new QLabel(this)),
      m_zoomDebounce(new QTimer(this))
{
    followPalette(m_plot);
    m_aggregate->addItem(tr("Mean error"), static_cast<int>(gguf::CellAggregate::Mean));
    m_aggregate->addItem(tr("Largest |error|"), static_cast<int>(gguf::CellAggregate::AbsMax));
    m_aggregate->setObjectName(QStringLiteral("errorAggregateCombo"));
    m_aggregate->setToolTip(tr("How the errors under one screen cell are combined"));
    connect(m_aggregate, &QComboBox::currentIndexChanged, this, &ErrorHeatmapView::requestVisibleRegion);

    m_plot->setObjectName(QStringLiteral("errorHeatmapPlot"));
    const MatrixPlotParts parts = setUpMatrixPlot(m_plot, tr("error (other − reference)"));
    m_map = parts.map;
    m_scale = parts.scale;

    m_zoomDebounce->setSingleShot(true);
    m_zoomDebounce->setInterval(kZoomDebounceMs);
    connect(m_zoomDebounce, &QTimer::timeout, this, &ErrorHeatmapView::requestVisibleRegion);
    auto onRangeChanged = [this]() {
        if (!m_settingRange)
            m_zoomDebounce->start();
    };
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, &ErrorHeatmapView::showHover);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Cell aggregate:"), this));
    controls->addWidget(m_aggregate);
    controls->addStretch(1);
    controls->addWidget(m_hover);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
}

bool ErrorHeatmapView::hasCell() const
{
    return m_comparison && m_row < m_comparison->rows().size() && m_comparison->cellElements(m_row, m_column) > 0;
}

bool ErrorHeatmapView::isComputing() const
{
    return m_job && m_job->isRunning();
}

void ErrorHeatmapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (hasCell())
        m_zoomDebounce->start();
}

void ErrorHeatmapView::setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column)
{
    if (m_job)
        m_job->cancel();
    m_comparison = std::move(comparison);
    m_row = row;
    m_column = column;
    m_shownCells.clear();
    m_shownGrid = {};
    m_map->data()->clear();
    if (!hasCell()) {
        m_hover->setText(m_comparison && m_row < m_comparison->rows().size()
                             ? QString::fromStdString(m_comparison->rows()[m_row].cells[m_column].problem)
                             : QString());
        m_plot->replot();
        return;
    }
    const gguf::HeatmapRegion whole = gguf::errorHeatmapExtent(*m_comparison, m_row);
    m_settingRange = true;
    m_plot->xAxis->setRange(-0.5, static_cast<double>(whole.columnEnd) - 0.5);
    m_plot->yAxis->setRange(-0.5, static_cast<double>(whole.rowEnd) - 0.5);
    m_settingRange = false;
    requestRegion(whole);
}

void ErrorHeatmapView::requestVisibleRegion()
{
    if (!hasCell())
        return;
    const gguf::HeatmapRegion whole = gguf::errorHeatmapExtent(*m_comparison, m_row);
    const QCPRange xs = m_plot->xAxis->range();
    const QCPRange ys = m_plot->yAxis->range();
    auto clampIndex = [](double value, std::uint64_t limit) {
        return static_cast<std::uint64_t>(std::clamp(value, 0.0, static_cast<double>(limit)));
    };
    gguf::HeatmapRegion region;
    region.columnBegin = clampIndex(std::floor(xs.lower + 0.5), whole.columnEnd - 1);
    region.columnEnd = std::max(region.columnBegin + 1, clampIndex(std::ceil(xs.upper + 0.5), whole.columnEnd));
    region.rowBegin = clampIndex(std::floor(ys.lower + 0.5), whole.rowEnd - 1);
    region.rowEnd = std::max(region.rowBegin + 1, clampIndex(std::ceil(ys.upper + 0.5), whole.rowEnd));
    requestRegion(region);
}

void ErrorHeatmapView::requestRegion(const gguf::HeatmapRegion& region)
{
    if (!hasCell())
        return;
    if (m_job)
        m_job->cancel();
    const qreal ratio = devicePixelRatioF();
    const QRect rect = m_plot->axisRect()->rect();
    const double low = std::min(m_minimumCells, kMaxCells);
    const auto maxColumns = static_cast<std::uint32_t>(std::clamp<double>(rect.width() * ratio, low, kMaxCells));
    const auto maxRows = static_cast<std::uint32_t>(std::clamp<double>(rect.height() * ratio, low, kMaxCells));
    const auto aggregate = static_cast<gguf::CellAggregate>(m_aggregate->currentData().toInt());
    const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, maxRows, maxColumns, aggregate);

    auto cells = std::make_shared<std::vector<float>>(static_cast<std::size_t>(grid.rows) * grid.columns);
    const int bands = static_cast<int>(std::min<std::uint32_t>(grid.rows, static_cast<std::uint32_t>(QThread::idealThreadCount()) * 4));
    auto* job = new BackgroundJob(bands, [comparison = m_comparison, row = m_row, column = m_column, grid, cells,
                                          bands](int band, const std::atomic<bool>& cancelled) {
        const auto first = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * band / bands);
        const auto last = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * (band + 1) / bands);
        const std::span<float> out(cells->data() + static_cast<std::size_t>(first) * grid.columns,
                                   static_cast<std::size_t>(last - first) * grid.columns);
        return gguf::reduceErrorHeatmapRows(*comparison, row, column, grid, first, last, out, &cancelled);
    }, this);
    m_job = job;
    m_progress->track(job, tr("Error heatmap"));
    connect(job, &BackgroundJob::finished, this, [this, job, grid, cells](bool succeeded, const QString& error) {
        job->deleteLater();
        if (job != m_job)
            return;  // a newer request made this one stale
        if (!succeeded) {
            if (!error.contains(QLatin1String("cancelled")))
                m_hover->setText(error);
            return;
        }
        display(grid, std::move(*cells));
    });
}

void ErrorHeatmapView::display(const gguf::HeatmapGrid& grid, std::vector<float> cells)
{
    m_shownGrid = grid;
    m_shownCells = std::move(cells);
    const gguf::HeatmapRegion& r = grid.region;
    const double cellWidth = static_cast<double>(r.columnEnd - r.columnBegin) / grid.columns;
    const double cellHeight = static_cast<double>(r.rowEnd - r.rowBegin) / grid.rows;
    auto* mapData = new QCPColorMapData(static_cast<int>(grid.columns), static_cast<int>(grid.rows),
                                        QCPRange(r.columnBegin + cellWidth / 2 - 0.5, r.columnEnd - cellWidth / 2 - 0.5),
                                        QCPRange(r.rowBegin + cellHeight / 2 - 0.5, r.rowEnd - cellHeight / 2 - 0.5));
    for (std::uint32_t row = 0; row < grid.rows; ++row)
        for (std::uint32_t column = 0; column < grid.columns; ++column)
            mapData->setCell(static_cast<int>(column), static_cast<int>(row), m_shownCells[static_cast<std::size_t>(row) * grid.columns + column]);
    m_map->setData(mapData);
    m_map->setDataRange(symmetricRange(m_shownCells.data(), m_shownCells.size()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit heatmapReady();
}

void ErrorHeatmapView::showHover(QMouseEvent* event)
{
    if (m_shownCells.empty() || m_shownGrid.rows == 0)
        return;
    const gguf::HeatmapRegion& r = m_shownGrid.region;
    const double column = std::floor(m_plot->xAxis->pixelToCoord(event->position().x()) + 0.5);
    const double row = std::floor(m_plot->yAxis->pixelToCoord(event->position().y()) + 0.5);
    if (column < static_cast<double>(r.columnBegin) || column >= static_cast<double>(r.columnEnd) || row < static_cast<double>(r.rowBegin)
        || row >= static_cast<double>(r.rowEnd)) {
        m_hover->clear();
        return;
    }
    const auto cellColumn = static_cast<std::uint32_t>((column - r.columnBegin) * m_shownGrid.columns / (r.columnEnd - r.columnBegin));
    const auto cellRow = static_cast<std::uint32_t>((row - r.rowBegin) * m_shownGrid.rows / (r.rowEnd - r.rowBegin));
    const float value = m_shownCells[static_cast<std::size_t>(cellRow) * m_shownGrid.columns + cellColumn];
    m_hover->setText(tr("row %1, column %2: error %3").arg(row).arg(column).arg(static_cast<double>(value), 0, 'g', 7));
}
