#include "tensor/HeatmapView.h"

#include "common/MatrixPlot.h"
#include "common/PlotPalette.h"

#include "session/BackgroundJob.h"
#include "common/DivergingGradient.h"
#include "common/JobProgressBar.h"
#include "session/ResultCache.h"

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

const std::vector<float>& emptyCells()
{
    static const std::vector<float> empty;
    return empty;
}
}  // namespace

HeatmapView::HeatmapView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_plot(new QCustomPlot(this)), m_aggregate(new QComboBox(this)), m_hover(new QLabel(this)),
      m_zoomDebounce(new QTimer(this))
{
    followPalette(m_plot);
    m_aggregate->addItem(tr("Mean"), static_cast<int>(gguf::CellAggregate::Mean));
    m_aggregate->addItem(tr("Abs max"), static_cast<int>(gguf::CellAggregate::AbsMax));
    m_aggregate->addItem(tr("Min"), static_cast<int>(gguf::CellAggregate::Min));
    m_aggregate->addItem(tr("Max"), static_cast<int>(gguf::CellAggregate::Max));
    m_aggregate->setToolTip(tr("How the weights under one screen cell are combined"));
    m_aggregate->setObjectName(QStringLiteral("aggregateCombo"));
    connect(m_aggregate, &QComboBox::currentIndexChanged, this, &HeatmapView::requestVisibleRegion);

    m_plot->setObjectName(QStringLiteral("heatmapPlot"));
    const MatrixPlotParts parts = setUpMatrixPlot(m_plot, {});
    m_map = parts.map;
    m_scale = parts.scale;

    m_zoomDebounce->setSingleShot(true);
    m_zoomDebounce->setInterval(kZoomDebounceMs);
    connect(m_zoomDebounce, &QTimer::timeout, this, &HeatmapView::requestVisibleRegion);
    auto onRangeChanged = [this]() {
        if (!m_settingRange)
            m_zoomDebounce->start();
    };
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapView::showHover);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const double column = m_plot->xAxis->pixelToCoord(event->position().x());
        const double row = m_plot->yAxis->pixelToCoord(event->position().y());
        if (m_slice.isValid() && column >= -0.5 && row >= -0.5 && column < m_slice.slice.rowLength() - 0.5 && row < m_slice.slice.rowCount - 0.5)
            emit cellClicked(static_cast<std::uint64_t>(std::lround(row)), static_cast<std::uint64_t>(std::lround(column)));
    });

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Cell aggregate:"), this));
    controls->addWidget(m_aggregate);
    controls->addStretch(1);
    controls->addWidget(m_hover);
    m_hover->setObjectName(QStringLiteral("hoverLabel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
}

void HeatmapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_slice.isValid())
        m_zoomDebounce->start();
}

const std::vector<float>& HeatmapView::cells() const
{
    return m_shownCells ? *m_shownCells : emptyCells();
}

bool HeatmapView::isComputing() const
{
    return m_job && m_job->isRunning();
}

gguf::CellAggregate HeatmapView::aggregate() const
{
    return static_cast<gguf::CellAggregate>(m_aggregate->currentData().toInt());
}

void HeatmapView::setSlice(const SliceRef& slice)
{
    m_slice = slice;
    m_shownCells.reset();
    m_shownGrid = {};
    m_map->data()->clear();
    if (!slice.isValid() || slice.slice.elementCount() == 0) {
        m_plot->replot();
        return;
    }
    const gguf::HeatmapRegion whole{0, slice.slice.rowCount, 0, slice.slice.rowLength()};
    m_settingRange = true;
    m_plot->xAxis->setRange(-0.5, static_cast<double>(whole.columnEnd) - 0.5);
    m_plot->yAxis->setRange(-0.5, static_cast<double>(whole.rowEnd) - 0.5);
    m_settingRange = false;
    requestRegion(whole);
}

void HeatmapView::requestVisibleRegion()
{
    if (!m_slice.isValid() || m_slice.slice.elementCount() == 0)
        return;
    const QCPRange xs = m_plot->xAxis->range();
    const QCPRange ys = m_plot->yAxis->range();
    auto clampIndex = [](double value, std::uint64_t limit) {
        return static_cast<std::uint64_t>(std::clamp(value, 0.0, static_cast<double>(limit)));
    };
    gguf::HeatmapRegion region;
    region.columnBegin = clampIndex(std::floor(xs.lower + 0.5), m_slice.slice.rowLength() - 1);
    region.columnEnd = std::max(region.columnBegin + 1, clampIndex(std::ceil(xs.upper + 0.5), m_slice.slice.rowLength()));
    region.rowBegin = clampIndex(std::floor(ys.lower + 0.5), m_slice.slice.rowCount - 1);
    region.rowEnd = std::max(region.rowBegin + 1, clampIndex(std::ceil(ys.upper + 0.5), m_slice.slice.rowCount));
    requestRegion(region);
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

void HeatmapView::requestRegion(const gguf::HeatmapRegion& region)
{
    if (m_job)
        m_job->cancel();
    const qreal ratio = devicePixelRatioF();
    const QRect rect = m_plot->axisRect()->rect();
    const auto maxColumns = static_cast<std::uint32_t>(std::clamp<double>(rect.width() * ratio, 64, kMaxCells));
    const auto maxRows = static_cast<std::uint32_t>(std::clamp<double>(rect.height() * ratio, 64, kMaxCells));
    const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, maxRows, maxColumns, aggregate());
    const QString key = cacheKey(grid);
    if (auto cached = ResultCache::instance().find(key)) {
        display(grid, std::move(cached));
        return;
    }

    auto cells = std::make_shared<std::vector<float>>(static_cast<std::size_t>(grid.rows) * grid.columns);
    const int bands = static_cast<int>(std::min<std::uint32_t>(grid.rows, static_cast<std::uint32_t>(QThread::idealThreadCount()) * 8));
    const SliceRef slice = m_slice;
    auto* job = new BackgroundJob(bands, [slice, grid, cells, bands](int band, const std::atomic<bool>& cancelled) {
        const auto first = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * band / bands);
        const auto last = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * (band + 1) / bands);
        const std::span<float> out(cells->data() + static_cast<std::size_t>(first) * grid.columns,
                                   static_cast<std::size_t>(last - first) * grid.columns);
        return gguf::reduceHeatmapRows(slice.slice, grid, first, last, out, &cancelled);
    }, this);
    m_job = job;
    m_progress->track(job, tr("Heatmap of %1").arg(slice.label()));
    connect(job, &BackgroundJob::finished, this, [this, job, grid, cells, key](bool succeeded, const QString& error) {
        job->deleteLater();
        if (job != m_job)
            return;  // a newer request made this one stale
        if (!succeeded) {
            if (error != QLatin1String("cancelled") && !error.contains(QLatin1String("cancelled")))
                m_hover->setText(error);
            return;
        }
        ResultCache::instance().insert(key, cells);
        display(grid, cells);
    });
}

void HeatmapView::display(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells)
{
    m_shownGrid = grid;
    m_shownCells = std::move(cells);
    const gguf::HeatmapRegion& r = grid.region;
    const double cellWidth = static_cast<double>(r.columnEnd - r.columnBegin) / grid.columns;
    const double cellHeight = static_cast<double>(r.rowEnd - r.rowBegin) / grid.rows;
    auto* mapData = new QCPColorMapData(static_cast<int>(grid.columns), static_cast<int>(grid.rows),
                                     QCPRange(r.columnBegin + cellWidth / 2 - 0.5, r.columnEnd - cellWidth / 2 - 0.5),
                                     QCPRange(r.rowBegin + cellHeight / 2 - 0.5, r.rowEnd - cellHeight / 2 - 0.5));
    const std::vector<float>& values = *m_shownCells;
    for (std::uint32_t row = 0; row < grid.rows; ++row)
        for (std::uint32_t column = 0; column < grid.columns; ++column)
            mapData->setCell(static_cast<int>(column), static_cast<int>(row), values[static_cast<std::size_t>(row) * grid.columns + column]);
    m_map->setData(mapData);
    m_map->setDataRange(symmetricRange(values.data(), values.size()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit heatmapReady();
}

void HeatmapView::showHover(QMouseEvent* event)
{
    if (!m_shownCells || m_shownGrid.rows == 0)
        return;
    const double x = m_plot->xAxis->pixelToCoord(event->position().x());
    const double y = m_plot->yAxis->pixelToCoord(event->position().y());
    const gguf::HeatmapRegion& r = m_shownGrid.region;
    const double column = std::floor(x + 0.5);
    const double row = std::floor(y + 0.5);
    if (column < static_cast<double>(r.columnBegin) || column >= static_cast<double>(r.columnEnd) || row < static_cast<double>(r.rowBegin)
        || row >= static_cast<double>(r.rowEnd)) {
        m_hover->clear();
        return;
    }
    const auto cellColumn = static_cast<std::uint32_t>((column - r.columnBegin) * m_shownGrid.columns / (r.columnEnd - r.columnBegin));
    const auto cellRow = static_cast<std::uint32_t>((row - r.rowBegin) * m_shownGrid.rows / (r.rowEnd - r.rowBegin));
    const float value = (*m_shownCells)[static_cast<std::size_t>(cellRow) * m_shownGrid.columns + cellColumn];
    const bool exact = m_shownGrid.columns == r.columnEnd - r.columnBegin && m_shownGrid.rows == r.rowEnd - r.rowBegin;
    m_hover->setText(exact ? tr("row %1, column %2: %3").arg(row).arg(column).arg(static_cast<double>(value), 0, 'g', 9)
                           : tr("row %1, column %2: %3 (%4 of a cell)").arg(row).arg(column).arg(static_cast<double>(value), 0, 'g', 7)
                                 .arg(m_aggregate->currentText().toLower()));
}
