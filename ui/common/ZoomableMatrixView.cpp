#include "common/ZoomableMatrixView.h"

#include "common/DivergingGradient.h"
#include "common/JobProgressBar.h"
#include "common/MatrixPlot.h"
#include "common/PlotPalette.h"
#include "session/BackgroundJob.h"
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

ZoomableMatrixView::ZoomableMatrixView(JobProgressBar* progress, const Options& options, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_bandsPerThread(std::max(1, options.bandsPerThread)), m_plot(new QCustomPlot(this)),
      m_aggregate(new QComboBox(this)), m_hover(new QLabel(this)), m_zoomDebounce(new QTimer(this))
{
    followPalette(m_plot);
    for (const auto& [label, aggregate] : options.aggregates)
        m_aggregate->addItem(label, static_cast<int>(aggregate));
    m_aggregate->setToolTip(options.aggregateTip);
    m_aggregate->setObjectName(options.aggregateName);
    connect(m_aggregate, &QComboBox::currentIndexChanged, this, &ZoomableMatrixView::requestVisibleRegion);

    m_plot->setObjectName(options.plotName);
    const MatrixPlotParts parts = setUpMatrixPlot(m_plot, options.scaleLabel);
    m_map = parts.map;
    m_scale = parts.scale;

    m_zoomDebounce->setSingleShot(true);
    m_zoomDebounce->setInterval(kZoomDebounceMs);
    connect(m_zoomDebounce, &QTimer::timeout, this, &ZoomableMatrixView::requestVisibleRegion);
    auto onRangeChanged = [this]() {
        if (!m_settingRange)
            m_zoomDebounce->start();
    };
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, &ZoomableMatrixView::showHover);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Cell aggregate:"), this));
    controls->addWidget(m_aggregate);
    controls->addStretch(1);
    controls->addWidget(m_hover);
    m_hover->setObjectName(options.hoverName);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
}

bool ZoomableMatrixView::hasMatrix() const
{
    const gguf::HeatmapRegion whole = extent();
    return whole.rowEnd > 0 && whole.columnEnd > 0;
}

const std::vector<float>& ZoomableMatrixView::cells() const
{
    return m_shownCells ? *m_shownCells : emptyCells();
}

bool ZoomableMatrixView::isComputing() const
{
    return m_jobs.isRunning();
}

QString ZoomableMatrixView::aggregateLabel() const
{
    return m_aggregate->currentText();
}

void ZoomableMatrixView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // A new size may allow more cells: recompute the visible region once resizing settles.
    if (hasMatrix())
        m_zoomDebounce->start();
}

void ZoomableMatrixView::matrixChanged()
{
    m_jobs.renew();
    m_zoomDebounce->stop();
    m_shownCells.reset();
    m_shownGrid = {};
    m_map->data()->clear();
    if (!hasMatrix()) {
        m_plot->replot();
        return;
    }
    const gguf::HeatmapRegion whole = extent();
    m_settingRange = true;
    m_plot->xAxis->setRange(-0.5, static_cast<double>(whole.columnEnd) - 0.5);
    m_plot->yAxis->setRange(-0.5, static_cast<double>(whole.rowEnd) - 0.5);
    m_settingRange = false;
    requestRegion(whole);
}

void ZoomableMatrixView::requestVisibleRegion()
{
    if (!hasMatrix())
        return;
    const gguf::HeatmapRegion whole = extent();
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

void ZoomableMatrixView::requestRegion(const gguf::HeatmapRegion& region)
{
    if (!hasMatrix())
        return;
    // Every request, even one the cache answers, makes the jobs of older ones stale.
    m_jobs.renew();
    const qreal ratio = devicePixelRatioF();
    const QRect rect = m_plot->axisRect()->rect();
    const double low = std::min(m_minimumCells, kMaxCells);
    const auto maxColumns = static_cast<std::uint32_t>(std::clamp<double>(rect.width() * ratio, low, kMaxCells));
    const auto maxRows = static_cast<std::uint32_t>(std::clamp<double>(rect.height() * ratio, low, kMaxCells));
    const auto aggregate = static_cast<gguf::CellAggregate>(m_aggregate->currentData().toInt());
    const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, maxRows, maxColumns, aggregate);
    const QString key = cacheKey(grid);
    if (!key.isEmpty()) {
        if (auto cached = ResultCache::instance().find(key)) {
            display(grid, std::move(cached));
            return;
        }
    }

    auto cells = std::make_shared<std::vector<float>>(static_cast<std::size_t>(grid.rows) * grid.columns);
    const int threads = std::max(1, QThread::idealThreadCount());
    const int bands = static_cast<int>(std::min<std::uint32_t>(grid.rows, static_cast<std::uint32_t>(threads * m_bandsPerThread)));
    auto* job = new BackgroundJob(bands, [work = bandWork(), grid, cells, bands](int band, const std::atomic<bool>& cancelled) {
        const auto first = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * band / bands);
        const auto last = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * (band + 1) / bands);
        const std::span<float> out(cells->data() + static_cast<std::size_t>(first) * grid.columns, static_cast<std::size_t>(last - first) * grid.columns);
        return work(grid, first, last, out, &cancelled);
    }, this);
    if (m_progress)
        m_progress->track(job, jobDescription());
    m_jobs.track(job, this, [this, grid, cells, key](const JobOutcome& outcome) {
        if (outcome.isFailed())
            m_hover->setText(outcome.message());
        if (!outcome.isDone())
            return;
        if (!key.isEmpty())
            ResultCache::instance().insert(key, cells);
        display(grid, cells);
    });
}

void ZoomableMatrixView::display(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells)
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

void ZoomableMatrixView::showHover(QMouseEvent* event)
{
    if (!m_shownCells || m_shownGrid.rows == 0)
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
    const float value = (*m_shownCells)[static_cast<std::size_t>(cellRow) * m_shownGrid.columns + cellColumn];
    const bool exact = m_shownGrid.columns == r.columnEnd - r.columnBegin && m_shownGrid.rows == r.rowEnd - r.rowBegin;
    m_hover->setText(hoverText(row, column, value, exact));
}
