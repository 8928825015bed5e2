#include "ui/tensor/BlockScalesView.h"

#include "ui/common/ColourScales.h"
#include "ui/common/MatrixPlot.h"
#include "core/analysis/HeatmapReducer.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotPlaceholder.h"

#include "ui/session/BackgroundJob.h"
#include "ui/common/JobProgressBar.h"
#include "core/gguf/MetadataFormat.h"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace {
constexpr std::uint32_t kBins = 128;
constexpr std::uint32_t kGridCells = 512;

void fillBars(QCPBars* bars, const gguf::Histogram& histogram)
{
    const double width = (histogram.upper() - histogram.lower()) / static_cast<double>(histogram.counts().size());
    QVector<double> keys;
    QVector<double> values;
    for (std::uint32_t bin = 0; bin < histogram.counts().size(); ++bin) {
        keys << histogram.binLower(bin) + width / 2;
        values << static_cast<double>(histogram.counts()[bin]);
    }
    bars->setWidth(width > 0 ? width : 1.0);
    bars->setData(keys, values, true);
}
}  // namespace

BlockScalesView::BlockScalesView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_message(new QLabel(this)), m_histograms(new QCustomPlot(this)), m_heatmap(new QCustomPlot(this))
{
    followPalette(m_histograms);
    followPalette(m_heatmap);
    m_histograms->setObjectName(QStringLiteral("scaleHistogramPlot"));
    m_scaleBars = new QCPBars(m_histograms->xAxis, m_histograms->yAxis);
    m_scaleBars->setName(tr("effective scales"));
    m_scaleBars->setPen(Qt::NoPen);
    m_scaleBars->setBrush(QColor(67, 147, 195, 200));
    m_minRect = new QCPAxisRect(m_histograms);
    m_minRect->setObjectName(QStringLiteral("minHistogramRect"));
    m_histograms->plotLayout()->addElement(1, 0, m_minRect);
    m_minBars = new QCPBars(m_minRect->axis(QCPAxis::atBottom), m_minRect->axis(QCPAxis::atLeft));
    m_minBars->setName(tr("effective mins"));
    m_minBars->setPen(Qt::NoPen);
    m_minBars->setBrush(QColor(214, 96, 77, 160));
    m_histograms->legend->setVisible(true);
    m_histograms->xAxis->setLabel(tr("effective scale"));
    m_histograms->yAxis->setLabel(tr("blocks"));
    m_minRect->axis(QCPAxis::atBottom)->setLabel(tr("effective min"));
    m_minRect->axis(QCPAxis::atLeft)->setLabel(tr("blocks"));
    m_histograms->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    m_heatmap->setObjectName(QStringLiteral("scaleHeatmapPlot"));
    m_map = setUpMap(m_heatmap);
    m_minHeatmap = new QCustomPlot(this);
    followPalette(m_minHeatmap);
    m_minHeatmap->setObjectName(QStringLiteral("minHeatmapPlot"));
    m_minMap = setUpMap(m_minHeatmap);

    m_plots = new QTabWidget(this);
    m_plots->setObjectName(QStringLiteral("scalePlotTabs"));
    m_plots->setDocumentMode(true);
    m_plots->addTab(m_histograms, tr("Histograms"));
    m_plots->addTab(m_heatmap, tr("Scale map"));
    m_plots->addTab(m_minHeatmap, tr("Min map"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_message);
    layout->addWidget(m_plots, 1);
    m_message->setObjectName(QStringLiteral("scalesMessage"));
    m_message->setWordWrap(true);
    for (QCustomPlot* plot : {m_histograms, m_heatmap, m_minHeatmap})
        m_placeholders.push_back(new PlotPlaceholder(plot));
    plotreadout::install(m_histograms, [this](const plotreadout::Pointer& at) { return histogramReadout(at); });
    plotreadout::install(m_heatmap, [this](const plotreadout::Pointer& at) { return mapReadout(at, false); });
    plotreadout::install(m_minHeatmap, [this](const plotreadout::Pointer& at) { return mapReadout(at, true); });
    showPlaceholders(tr("Select a tensor to see its block scales."));
}

void BlockScalesView::showPlaceholders(const QString& text, const std::function<void()>& retry)
{
    for (PlotPlaceholder* placeholder : m_placeholders)
        placeholder->show(text, retry);
}

void BlockScalesView::hidePlaceholders()
{
    for (PlotPlaceholder* placeholder : m_placeholders)
        placeholder->hide();
}

QString BlockScalesView::placeholderText() const
{
    return m_placeholders.front()->text();
}

QCPColorMap* BlockScalesView::setUpMap(QCustomPlot* plot)
{
    plot->xAxis->setLabel(tr("sub-block column"));
    plot->yAxis->setLabel(tr("row"));
    plot->yAxis->setRangeReversed(true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // One cell per sub-block column and row band, drawn as the blocks they are: not blurred
    // into their neighbours, on whole-number ticks.
    setWholeNumberTicks(plot->xAxis);
    setWholeNumberTicks(plot->yAxis);
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    map->setInterpolate(false);
    auto* scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(0, 1, scale);
    map->setColorScale(scale);
    map->setGradient(sequentialGradient());  // after linking: the scale hands its gradient to the map
    hatchUndefinedCells(plot);
    // A click names the block under the cursor, for the inspector.
    connect(plot, &QCustomPlot::mousePress, this, [this, plot](QMouseEvent* event) {
        if (!m_overview || !m_slice.isValid())
            return;
        const double column = plot->xAxis->pixelToCoord(event->position().x());
        const double row = plot->yAxis->pixelToCoord(event->position().y());
        if (column < -0.5 || row < -0.5 || row >= m_slice.slice.rowCount - 0.5 || column >= m_overview->subBlocksPerRow - 0.5)
            return;
        const std::uint64_t subBlock = static_cast<std::uint64_t>(std::lround(column));
        const std::uint64_t subBlocksPerBlock = m_overview->layout.subScales;
        emit blockClicked(static_cast<std::uint64_t>(std::lround(row)), subBlock / std::max<std::uint64_t>(1, subBlocksPerBlock));
    });
    return map;
}

void BlockScalesView::fillMap(QCustomPlot* plot, QCPColorMap* map, const std::vector<float>& grid)
{
    const gguf::ScaleOverview& o = *m_overview;
    if (!o.gridRows || !o.gridColumns || grid.size() != static_cast<std::size_t>(o.gridRows) * o.gridColumns)
        return;
    const double cellWidth = static_cast<double>(o.subBlocksPerRow) / o.gridColumns;
    const double cellHeight = static_cast<double>(m_slice.slice.rowCount) / o.gridRows;
    auto* mapData = new QCPColorMapData(static_cast<int>(o.gridColumns), static_cast<int>(o.gridRows),
                                        QCPRange(cellWidth / 2 - 0.5, o.subBlocksPerRow - cellWidth / 2 - 0.5),
                                        QCPRange(cellHeight / 2 - 0.5, m_slice.slice.rowCount - cellHeight / 2 - 0.5));
    for (std::uint32_t r = 0; r < o.gridRows; ++r)
        for (std::uint32_t c = 0; c < o.gridColumns; ++c)
            mapData->setCell(static_cast<int>(c), static_cast<int>(r), grid[static_cast<std::size_t>(r) * o.gridColumns + c]);
    map->setData(mapData);
    map->rescaleDataRange(true);
    // The whole of the edge cells: the data's key range ends at their centres.
    plot->xAxis->setRange(-0.5, static_cast<double>(o.subBlocksPerRow) - 0.5);
    plot->yAxis->setRange(-0.5, static_cast<double>(m_slice.slice.rowCount) - 0.5);
}

BlockScalesView::~BlockScalesView()
{
    // The plot deletes the layout elements it holds; a min panel taken out for a type without
    // mins goes back so that it is deleted with the rest.
    if (!m_histograms->plotLayout()->hasElement(1, 0))
        m_histograms->plotLayout()->addElement(1, 0, m_minRect);
}

QString BlockScalesView::histogramReadout(const plotreadout::Pointer& at) const
{
    if (!m_overview)
        return {};
    const bool mins = at.rect == m_minRect;
    const std::optional<gguf::Histogram>& histogram = mins ? m_overview->minHistogram : m_overview->scaleHistogram;
    const auto point = plotreadout::pointAt(mins ? m_minBars : m_scaleBars, at.x);
    if (!histogram || !point)
        return {};
    return plotreadout::histogramBin(*histogram, static_cast<std::uint32_t>(point->index), mins ? tr("effective mins") : tr("effective scales"),
                                     tr("sub-blocks"));
}

QString BlockScalesView::mapReadout(const plotreadout::Pointer& at, bool mins) const
{
    if (!m_overview || !m_overview->gridRows || !m_overview->gridColumns)
        return {};
    const gguf::ScaleOverview& o = *m_overview;
    const std::vector<float>& grid = mins ? o.minGrid : o.grid;
    const auto cell = plotreadout::cellAt(mins ? m_minMap : m_map, at.x, at.y);
    if (!cell || grid.size() != static_cast<std::size_t>(o.gridRows) * o.gridColumns)
        return {};
    // The source rows and sub-block columns the cell is the mean of (computeScaleOverview's cells).
    const auto row = static_cast<std::uint32_t>(cell->row);
    const auto column = static_cast<std::uint32_t>(cell->column);
    const std::uint64_t rows = m_slice.slice.rowCount;
    const std::uint64_t firstRow = gguf::heatmapCellStart(0, rows, o.gridRows, row);
    const std::uint64_t lastRow = gguf::heatmapCellStart(0, rows, o.gridRows, row + 1) - 1;
    const std::uint64_t firstColumn = gguf::heatmapCellStart(0, o.subBlocksPerRow, o.gridColumns, column);
    const std::uint64_t lastColumn = gguf::heatmapCellStart(0, o.subBlocksPerRow, o.gridColumns, column + 1) - 1;
    const bool one = firstRow == lastRow && firstColumn == lastColumn;
    const QString what = mins ? (one ? tr("effective min") : tr("mean effective min")) : (one ? tr("effective scale") : tr("mean effective scale"));
    return tr("%1, %2\n%3: %4")
        .arg(plotreadout::spanText(tr("row"), tr("rows"), firstRow, lastRow),
             plotreadout::spanText(tr("sub-block column"), tr("sub-block columns"), firstColumn, lastColumn), what,
             plotreadout::number(grid[static_cast<std::size_t>(row) * o.gridColumns + column]));
}

QCustomPlot* BlockScalesView::visiblePlot() const
{
    return qobject_cast<QCustomPlot*>(m_plots->currentWidget());
}

void BlockScalesView::setSlice(const SliceRef& slice)
{
    m_jobs.renew();
    m_slice = slice;
    m_overview.reset();
    display();
    if (!slice.isValid()) {
        showPlaceholders(tr("Select a tensor to see its block scales."));
        return;
    }
    if (!gguf::blockScaleLayout(slice.slice.tensor->typeId)) {
        m_message->setText(tr("%1 is not block-quantized: it has no per-block scales.")
                               .arg(QString::fromStdString(gguf::typeName(slice.slice.tensor->typeId))));
        showPlaceholders(m_message->text());
        return;
    }
    showPlaceholders(tr("Computing…"));
    BackgroundJob* job = m_jobs.run(
        [slice](const JobControl& control) { return gguf::computeScaleOverview(slice.slice, kGridCells, kGridCells, kBins, control.cancelFlag()); },
        [this](gguf::ScaleOverview overview) {
            hidePlaceholders();
            m_overview = std::move(overview);
            display();
            emit overviewReady();
        },
        [this](const JobOutcome& outcome) {
            m_message->setText(outcome.isCancelled() ? tr("Cancelled.") : outcome.message());
            showPlaceholders(outcome.isCancelled() ? tr("Cancelled — click to compute") : tr("%1\n(click to try again)").arg(outcome.message()),
                             [this]() { setSlice(m_slice); });
        });
    m_progress->track(job, tr("Block scales of %1").arg(slice.label()));
    m_message->setText(tr("Computing block scales…"));
}

void BlockScalesView::display()
{
    m_scaleBars->data()->clear();
    m_minBars->data()->clear();
    m_map->data()->clear();
    m_minMap->data()->clear();
    m_plots->setTabEnabled(m_plots->indexOf(m_minHeatmap), m_overview && !m_overview->minGrid.empty());
    if (!m_overview) {
        m_histograms->replot(QCustomPlot::rpQueuedReplot);
        m_heatmap->replot(QCustomPlot::rpQueuedReplot);
        m_minHeatmap->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const gguf::ScaleOverview& o = *m_overview;
    const gguf::Statistics& s = o.scaleStatistics;
    QString text = tr("%1 sub-blocks of %2 elements per row · effective scale min %3, max %4, mean %5")
                       .arg(o.subBlocksPerRow)
                       .arg(o.layout.elementsPerSubBlock)
                       .arg(QString::fromStdString(gguf::formatFloat(s.min, true)), QString::fromStdString(gguf::formatFloat(s.max, true)),
                            QString::fromStdString(gguf::formatFloat(s.mean, true)));
    if (s.nanCount || s.infCount)
        text += tr(" · <font color=#b00>%1 NaN and %2 infinite scales</font>").arg(s.nanCount).arg(s.infCount);
    m_message->setText(text);
    m_minBars->setVisible(o.minHistogram.has_value());
    // Types without mins get the scale panel alone; the min panel comes back for the next one.
    const bool minPanelShown = m_histograms->plotLayout()->hasElement(1, 0);
    if (o.minHistogram && !minPanelShown) {
        m_histograms->plotLayout()->addElement(1, 0, m_minRect);
    } else if (!o.minHistogram && minPanelShown) {
        m_histograms->plotLayout()->take(m_minRect);
        m_histograms->plotLayout()->simplify();
    }
    if (o.scaleHistogram)
        fillBars(m_scaleBars, *o.scaleHistogram);
    if (o.minHistogram)
        fillBars(m_minBars, *o.minHistogram);
    m_scaleBars->rescaleAxes();
    if (o.minHistogram)
        m_minBars->rescaleAxes();
    m_histograms->replot(QCustomPlot::rpQueuedReplot);

    fillMap(m_heatmap, m_map, o.grid);
    fillMap(m_minHeatmap, m_minMap, o.minGrid);
    m_minHeatmap->replot(QCustomPlot::rpQueuedReplot);
    m_heatmap->replot(QCustomPlot::rpQueuedReplot);
}
