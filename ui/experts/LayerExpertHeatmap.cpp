#include "ui/experts/LayerExpertHeatmap.h"
#include "ui/common/PlotReadout.h"

#include "core/gguf/GgufFile.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/experts/ExpertChartTitle.h"

#include "ui/common/PlotPalette.h"

#include "ui/session/BackgroundJob.h"
#include "ui/common/ColourScales.h"
#include "ui/common/DivergingGradient.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/StartWhenShown.h"
#include "ui/common/ThinnedRowTicker.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <QScopeGuard>
#include <qcustomplot.h>

namespace {
// The file pages an expert's statistics read, unmapped once it is done: every expert of every
// layer is read once, and a 94-layer model's mapped pages added up to gigabytes of resident
// memory that stayed after the view was cancelled. They come back from the page cache if read
// again; a remote file's bytes are not mapped pages (no-op).
void releaseExpertPages(const gguf::Model& model, const gguf::TensorInfo& tensor, std::uint64_t expert)
{
    const auto experts = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[2], 1));
    const std::uint64_t bytes = tensor.nbytes / experts;
    const std::uint64_t begin = tensor.fileOffset + expert * bytes;
    model.shards()[tensor.shard]->mapping().releaseUncopied(begin, begin + bytes);
}

// How often a running job's finished cells are drawn: redrawing the whole map for each of
// 12,000 cells kept the GUI thread busy, and the progress bar stood at 0 %.
constexpr int kRedrawIntervalMs = 150;
}  // namespace

LayerExpertHeatmap::LayerExpertHeatmap(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_statistic(new QComboBox(this)), m_message(new QLabel(this)), m_hover(new QLabel(this)),
      m_plot(new QCustomPlot(this)), m_startWhenShown(new StartWhenShown(this, [this]() { start(); })), m_redraw(new QTimer(this))
{
    m_redraw->setSingleShot(true);
    m_redraw->setInterval(kRedrawIntervalMs);
    connect(m_redraw, &QTimer::timeout, this, &LayerExpertHeatmap::display);
    followPalette(m_plot);
    for (const ExpertStatisticKind kind : kExpertStatisticKinds)
        m_statistic->addItem(expertStatisticName(kind), static_cast<int>(kind));
    m_statistic->setCurrentIndex(m_statistic->findData(static_cast<int>(ExpertStatisticKind::Rms)));
    m_statistic->setObjectName(QStringLiteral("layerStatisticCombo"));
    connect(m_statistic, &QComboBox::currentIndexChanged, this, &LayerExpertHeatmap::display);
    m_message->setObjectName(QStringLiteral("layerHeatmapMessage"));
    m_message->setWordWrap(true);
    m_hover->setObjectName(QStringLiteral("layerHeatmapHover"));

    m_plot->setObjectName(QStringLiteral("layerExpertPlot"));
    addPlotExport(m_plot, [this]() {
        // The projection, from the first layer's tensor: "blk.0.ffn_down_exps.weight" -> "ffn_down_exps.weight".
        QString projection;
        if (!m_layers.empty() && m_layers.front().tensor) {
            projection = expertTensorName(*m_layers.front().tensor);
            projection = projection.mid(projection.indexOf(QLatin1Char('.'), 4) + 1);
        }
        return expertChartTitle(m_model.get(), tr("%1 of every expert in every layer (%2)").arg(m_statistic->currentText(), projection));
    });
    m_plot->xAxis->setLabel(tr("expert"));
    m_plot->yAxis->setLabel(tr("layer"));
    m_plot->yAxis->setRangeReversed(true);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(ticker);
    }
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_map->setColorScale(m_scale);
    hatchUndefinedCells(m_plot);
    connect(m_plot, &QCustomPlot::mouseMove, this, &LayerExpertHeatmap::showHover);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Statistic:"), this));
    controls->addWidget(m_statistic);
    controls->addWidget(m_message, 1);
    // The value under the mouse on its own line, so a long message never squeezes it out.
    m_hover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_hover->setMinimumHeight(m_hover->fontMetrics().height());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_hover);
}

ExpertStatisticKind LayerExpertHeatmap::statistic() const
{
    return static_cast<ExpertStatisticKind>(m_statistic->currentData().toInt());
}

void LayerExpertHeatmap::setStatistic(ExpertStatisticKind kind)
{
    m_statistic->setCurrentIndex(m_statistic->findData(static_cast<int>(kind)));
}

bool LayerExpertHeatmap::isComputing() const
{
    return m_jobs.isRunning();
}

const std::optional<gguf::ExpertStatistics>& LayerExpertHeatmap::result(std::size_t layerRow, std::uint64_t expert) const
{
    static const std::optional<gguf::ExpertStatistics> none;
    if (layerRow >= m_layers.size() || expert >= m_expertCount)
        return none;
    return m_results[layerRow * static_cast<std::size_t>(m_expertCount) + static_cast<std::size_t>(expert)];
}

void LayerExpertHeatmap::setTensors(std::shared_ptr<const gguf::Model> model, std::vector<LayerTensor> layers)
{
    m_jobs.renew();
    m_pending.reset();
    m_redraw->stop();
    m_model = std::move(model);
    m_layers = std::move(layers);
    // Layers may disagree on their expert count (ExpertIndex reports it); the map is as wide as
    // the widest and the missing cells stay empty.
    m_expertCount = 0;
    for (const LayerTensor& entry : m_layers)
        m_expertCount = std::max<std::uint64_t>(m_expertCount, static_cast<std::uint64_t>(entry.tensor->ne[2]));
    m_results.assign(m_layers.size() * static_cast<std::size_t>(m_expertCount), std::nullopt);
    m_message->clear();
    display();
    if (m_model && !m_layers.empty())
        m_startWhenShown->request();
    else
        m_startWhenShown->drop();
}

void LayerExpertHeatmap::start()
{
    const std::size_t width = static_cast<std::size_t>(m_expertCount);
    auto results = std::make_shared<Results>(m_layers.size() * width);
    // One chunk per (layer, expert) that exists; chunk k is slot targets[k].
    auto targets = std::make_shared<std::vector<std::pair<const gguf::TensorInfo*, std::size_t>>>();
    for (std::size_t row = 0; row < m_layers.size(); ++row)
        for (std::uint64_t e = 0; e < static_cast<std::uint64_t>(m_layers[row].tensor->ne[2]); ++e)
            targets->emplace_back(m_layers[row].tensor, row * width + static_cast<std::size_t>(e));
    // Each chunk publishes its cell as it finishes, so the map fills in while the job runs.
    BackgroundJob* job = m_jobs.runChunks(
        static_cast<int>(targets->size()),
        [model = m_model, targets, results, width](int chunk, const JobControl& control) -> gguf::Status {
            const auto [tensor, slot] = (*targets)[static_cast<std::size_t>(chunk)];
            auto computed = gguf::computeExpertStatistics(*tensor, slot % width, control.cancelFlag());
            releaseExpertPages(*model, *tensor, slot % width);
            if (!computed)
                return computed.error();
            results->publish(slot, std::move(*computed));
            return gguf::Ok{};
        },
        [this](const std::vector<gguf::Ok>&) {
            collectAndDisplay();
            m_pending.reset();
            m_message->clear();
            emit statisticsReady();
        },
        [this](const JobOutcome& outcome) {
            collectAndDisplay();
            m_pending.reset();
            m_message->setText(outcome.isCancelled() ? tr("Cancelled; showing the layers finished so far.") : outcome.message());
            if (outcome.isCancelled())
                m_startWhenShown->requestOnNextShow();  // showing the view again finishes the work
        });
    m_pending = results;
    m_progress->track(job, tr("Expert statistics of %n layer(s)", nullptr, static_cast<int>(m_layers.size())));
    m_message->setText(tr("Computing…"));
    m_jobs.onChunkDone(job, [this]() { collect(); });
}

void LayerExpertHeatmap::collect()
{
    if (!m_pending)
        return;
    bool changed = false;
    m_pending->takeNew([&](std::size_t slot, const gguf::ExpertStatistics& statistics) {
        if (!m_results[slot]) {  // a resumed run recomputes slots an earlier one already delivered
            m_results[slot] = statistics;
            changed = true;
        }
    });
    // While the job runs, at most one redraw per interval; its end draws at once.
    if (changed && !m_redraw->isActive())
        m_redraw->start();
}

void LayerExpertHeatmap::collectAndDisplay()
{
    collect();
    m_redraw->stop();
    display();
}

void LayerExpertHeatmap::display()
{
    const auto columns = static_cast<int>(m_expertCount);
    const auto rows = static_cast<int>(m_layers.size());
    if (columns == 0 || rows == 0) {
        m_map->data()->clear();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const ExpertStatisticKind kind = statistic();
    auto* mapData = new QCPColorMapData(columns, rows, QCPRange(0, columns - 1), QCPRange(0, rows - 1));
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (int row = 0; row < rows; ++row) {
        for (int column = 0; column < columns; ++column) {
            const auto& cell = m_results[static_cast<std::size_t>(row) * static_cast<std::size_t>(columns) + static_cast<std::size_t>(column)];
            const double value = cell ? expertStatisticValue(*cell, kind) : std::numeric_limits<double>::quiet_NaN();
            mapData->setCell(column, row, value);
            if (std::isfinite(value)) {
                low = std::min(low, value);
                high = std::max(high, value);
            }
        }
    }
    m_map->setData(mapData);
    // Experts not computed yet (or missing in a layer) are NaN: no colour rather than a wrong one.
    if (expertStatisticIsSigned(kind)) {
        m_map->setGradient(divergingGradient());
        const double limit = std::isfinite(low) ? std::max({std::fabs(low), std::fabs(high), 1e-30}) : 1.0;
        m_map->setDataRange(QCPRange(-limit, limit));
    } else {
        m_map->setGradient(sequentialGradient());  // gpThermal's top was white on the white page
        m_map->setDataRange(std::isfinite(low) ? QCPRange(low, high > low ? high : low + 1e-30) : QCPRange(0.0, 1.0));
    }
    m_scale->setLabel(expertStatisticName(kind));
    // Every layer's number when there is room, else every 2nd, 5th, 10th… (94 ran together).
    QVector<QString> layerLabels;
    for (int row = 0; row < rows; ++row)
        layerLabels << QString::number(m_layers[static_cast<std::size_t>(row)].layer);
    m_plot->yAxis->setTicker(QSharedPointer<ThinnedRowTicker>::create(m_plot->yAxis, std::move(layerLabels)));
    m_plot->xAxis->setRange(-0.5, columns - 0.5);
    m_plot->yAxis->setRange(-0.5, rows - 0.5);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LayerExpertHeatmap::showHover(QMouseEvent* event)
{
    const auto published = qScopeGuard([this]() { plotreadout::publish(m_plot, m_hover->text()); });
    const double x = std::round(m_plot->xAxis->pixelToCoord(event->position().x()));
    const double y = std::round(m_plot->yAxis->pixelToCoord(event->position().y()));
    if (x < 0 || y < 0 || x >= static_cast<double>(m_expertCount) || y >= static_cast<double>(m_layers.size())) {
        m_hover->clear();
        return;
    }
    const auto& cell = result(static_cast<std::size_t>(y), static_cast<std::uint64_t>(x));
    const QString value = cell ? QString::number(expertStatisticValue(*cell, statistic()), 'g', 6) : tr("not computed");
    m_hover->setText(tr("layer %1, expert %2: %3").arg(m_layers[static_cast<std::size_t>(y)].layer).arg(x).arg(value));
}
