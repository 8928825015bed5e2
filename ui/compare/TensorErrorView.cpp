#include "ui/compare/TensorErrorView.h"

#include "ui/common/FittedAxisTicker.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPalette.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/common/PlotReadout.h"
#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/session/ComparisonColumnTitle.h"

#include "ui/session/BackgroundJob.h"
#include "core/blocks/BlockScales.h"
#include "core/compare/ErrorDistribution.h"
#include "ui/compare/ErrorHeatmapView.h"
#include "ui/common/JobProgressBar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <cmath>
#include <qcustomplot.h>

namespace {
constexpr int kHistogramBins = 121;  // odd, so one bin is centred on zero error
constexpr int kMaximumXTicks = 5;  // on a wide plot; a narrow one gets fewer
constexpr std::size_t kMaxScatterRanges = 64;  // sample large tensors evenly instead of plotting millions of blocks

// The parts of `ranges` (of the flattened tensor) inside one expert's elements. An expert is
// whole rows, and rows are whole blocks, so the cut ranges stay block-aligned.
std::vector<gguf::ElementRange> clippedToExpert(const std::vector<gguf::ElementRange>& ranges, std::uint64_t expert, std::uint64_t perExpert)
{
    const std::uint64_t begin = expert * perExpert;
    const std::uint64_t end = begin + perExpert;
    std::vector<gguf::ElementRange> clipped;
    for (const gguf::ElementRange& range : ranges)
        if (range.end > begin && range.begin < end)
            clipped.push_back({std::max(range.begin, begin), std::min(range.end, end)});
    return clipped;
}

// The ranges the histograms and the scatter read: the whole cell, or one expert's part of it.
std::vector<gguf::ElementRange> rangesOf(const gguf::ModelComparison& comparison, std::size_t row, std::size_t column,
                                         std::optional<std::uint64_t> expert)
{
    std::vector<gguf::ElementRange> ranges = comparison.cellRanges(row, column);
    if (!expert)
        return ranges;
    const gguf::TensorInfo& tensor = *comparison.rows()[row].reference;
    return clippedToExpert(ranges, *expert, static_cast<std::uint64_t>(tensor.ne[0]) * static_cast<std::uint64_t>(tensor.ne[1]));
}

}  // namespace

TensorErrorView::TensorErrorView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_title(new QLabel(this)), m_column(new QComboBox(this)),
      m_expertLabel(new QLabel(tr("Expert:"), this)), m_expert(new QSpinBox(this)),
      m_heatmap(new ErrorHeatmapView(progress, this)), m_histogram(new QCustomPlot(this)), m_scatter(new QCustomPlot(this)),
      m_scatterNote(new QLabel(this))
{
    followPalette(m_histogram);
    followPalette(m_scatter);
    m_column->setObjectName(QStringLiteral("tensorColumnCombo"));
    m_histogram->setObjectName(QStringLiteral("errorHistogramPlot"));
    m_scatter->setObjectName(QStringLiteral("blockScatterPlot"));
    m_title->setText(tr("Select a tensor in the table."));
    connect(m_column, &QComboBox::currentIndexChanged, this, &TensorErrorView::refresh);
    m_expert->setObjectName(QStringLiteral("tensorExpertSpin"));
    m_expert->setSpecialValueText(tr("all"));
    m_expert->setToolTip(tr("The expert the heatmap, the histograms and the scatter show; \"all\" shows every expert (the heatmap one "
                            "under the other, each labelled)"));
    m_expert->setRange(-1, 0);
    m_expert->hide();
    m_expertLabel->hide();
    connect(m_expert, &QSpinBox::valueChanged, this, [this]() {
        refreshHeatmap();
        startHistogram();
        startScatter();
    });

    m_histogram->xAxis->setLabel(tr("signed error (other − reference)"));
    m_histogram->yAxis->setLabel(tr("weights"));
    m_histogram->legend->setVisible(true);
    m_histogram->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Each file's count in the bin under the pointer; the outermost bins also hold every error
    // beyond the limit (addSignedErrors), and say so.
    plotreadout::install(m_histogram, [this](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            m_histogram, at.x,
            [](const plotreadout::KeyedPoint& point) {
                const QString lower = point.index == 0 ? tr("−∞") : plotreadout::number(point.lower);
                const QString upper = point.index + 1 == kHistogramBins ? tr("+∞") : plotreadout::number(point.upper);
                return tr("signed error in [%1, %2)").arg(lower, upper);
            },
            [](double count) { return tr("%1 weights").arg(static_cast<qulonglong>(count)); });
    });
    plotreadout::install(m_scatter, [this](const plotreadout::Pointer& at) { return scatterReadout(at.x, at.y); });
    m_scatter->xAxis->setLabel(tr("block scale"));
    m_scatter->yAxis->setLabel(tr("RMS error of the block"));
    m_scatter->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // The plots share the page with the heatmap and are narrow (300 px in a 1280 px window):
    // short x labels, and only as many as fit the axis, so "0.00025 0.0005 0.00075" never runs
    // together into one string.
    for (QCustomPlot* plot : {m_scatter, m_histogram}) {
        FittedAxisTicker::install(plot->xAxis, kMaximumXTicks);
        plot->xAxis->setNumberFormat(QStringLiteral("g"));
        plot->xAxis->setNumberPrecision(2);
    }
    m_scatterNote->setWordWrap(true);
    addPlotExport(m_histogram, [this]() {
        std::vector<std::size_t> columns;
        for (int graph = 0; graph < m_histogram->graphCount(); ++graph)
            columns.push_back(m_histogram->graph(graph)->property("comparisonColumn").toULongLong());
        return exportTitle(tr("Signed error histograms"), columns);
    });
    addPlotExport(m_scatter, [this]() {
        return exportTitle(tr("Per-block RMS error against the block scale"),
                           {static_cast<std::size_t>(std::max(0, m_column->currentIndex()))});
    });
    m_histogramPlaceholder = new PlotPlaceholder(m_histogram);
    m_scatterPlaceholder = new PlotPlaceholder(m_scatter);
    m_histogramPlaceholder->show(tr("Select a tensor in the table to see its error histograms."));
    m_scatterPlaceholder->show(tr("Select a tensor in the table to see its per-block errors."));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_title, 1);
    controls->addWidget(m_expertLabel);
    controls->addWidget(m_expert);
    controls->addWidget(new QLabel(tr("Column:"), this));
    controls->addWidget(m_column);
    auto* scatterBox = new QWidget(this);
    auto* scatterLayout = new QVBoxLayout(scatterBox);
    scatterLayout->setContentsMargins(0, 0, 0, 0);
    scatterLayout->addWidget(m_scatterNote);
    scatterLayout->addWidget(m_scatter, 1);
    auto* plots = new QSplitter(Qt::Vertical, this);
    plots->addWidget(m_histogram);
    plots->addWidget(scatterBox);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_heatmap);
    split->addWidget(plots);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // The plots' size hints follow their legends; short column titles would leave them a sliver.
    plots->setMinimumWidth(300);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(split, 1);
}

QString TensorErrorView::histogramPlaceholderText() const
{
    return m_histogramPlaceholder->text();
}

QString TensorErrorView::scatterReadout(double x, double y) const
{
    constexpr double kNearPixels = 6.0;
    const QPointF at(m_scatter->xAxis->coordToPixel(x), m_scatter->yAxis->coordToPixel(y));
    const ScatterPoint* nearest = nullptr;
    double best = kNearPixels;
    for (const ScatterPoint& point : m_scatterPoints) {
        const double distance = std::hypot(m_scatter->xAxis->coordToPixel(point.scale) - at.x(), m_scatter->yAxis->coordToPixel(point.rmsError) - at.y());
        if (distance < best) {
            best = distance;
            nearest = &point;
        }
    }
    if (!nearest || m_scatterBlockSize == 0)
        return {};
    return tr("block %1 (weights %2–%3)\nblock scale: %4\nRMS error: %5")
        .arg(nearest->firstWeight / m_scatterBlockSize)
        .arg(nearest->firstWeight)
        .arg(nearest->firstWeight + m_scatterBlockSize - 1)
        .arg(plotreadout::number(nearest->scale), plotreadout::number(nearest->rmsError));
}

QString TensorErrorView::scatterPlaceholderText() const
{
    return m_scatterPlaceholder->text();
}

void TensorErrorView::setComparison(std::shared_ptr<const gguf::ModelComparison> comparison)
{
    m_comparison = std::move(comparison);
    m_hasRow = false;
    const QSignalBlocker blocker(m_column);
    m_column->clear();
    if (m_comparison)
        for (std::size_t c = 0; c < m_comparison->columns().size(); ++c) {
            m_column->addItem(comparisonColumnSwatch(*m_comparison, c), comparisonColumnTitle(*m_comparison, c));
            m_column->setItemData(static_cast<int>(c), comparisonColumnSource(*m_comparison, c), Qt::ToolTipRole);
        }
}

void TensorErrorView::setResults(std::shared_ptr<const gguf::ComparisonResults> results)
{
    m_results = std::move(results);
    if (m_hasRow)
        startHistogram();
}

void TensorErrorView::setTensorRow(std::size_t row)
{
    if (!m_comparison || row >= m_comparison->rows().size())
        return;
    m_row = row;
    m_hasRow = true;
    const gguf::TensorInfo& tensor = *m_comparison->rows()[row].reference;
    m_title->setText(tr("<b>%1</b> (%2)").arg(QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size())),
                                              QString::fromStdString(gguf::typeName(tensor.typeId))));
    // Expert tensors open on expert 0, as on the Tensors and Experts pages.
    const bool experts = tensor.nDims == 3 && tensor.ne[2] > 1;
    {
        const QSignalBlocker blocker(m_expert);
        m_expert->setRange(-1, experts ? static_cast<int>(std::min<std::int64_t>(tensor.ne[2] - 1, INT_MAX)) : 0);
        m_expert->setValue(experts ? 0 : -1);
    }
    m_expert->setVisible(experts);
    m_expertLabel->setVisible(experts);
    startHistogram();
    refresh();
}

void TensorErrorView::setColumn(int column)
{
    m_column->setCurrentIndex(column);
}

void TensorErrorView::setExpert(int expert)
{
    if (m_expert->isVisibleTo(this))
        m_expert->setValue(std::clamp(expert, -1, m_expert->maximum()));
}

// "Signed error histograms of blk.0.ffn_down_exps.weight, expert 3: Q4_K_M, Q2_K against the reference …".
QString TensorErrorView::exportTitle(const QString& chart, const std::vector<std::size_t>& columns) const
{
    if (!m_comparison || !m_hasRow)
        return chart;
    const gguf::TensorInfo& tensor = *m_comparison->rows()[m_row].reference;
    QString what = tr("%1 of %2").arg(chart, QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size())));
    if (m_expert->isVisibleTo(this))
        what += m_expert->value() < 0 ? tr(", all experts") : tr(", expert %1").arg(m_expert->value());
    return tr("%1: %2").arg(what, comparisonSubject(*m_comparison, columns));
}

std::optional<std::uint64_t> TensorErrorView::shownExpert() const
{
    if (!m_hasRow || !m_expert->isVisibleTo(this) || m_expert->value() < 0)
        return std::nullopt;
    return static_cast<std::uint64_t>(m_expert->value());
}

QString TensorErrorView::expertSuffix(const QString& text) const
{
    const std::optional<std::uint64_t> expert = shownExpert();
    return expert ? tr("%1 of expert %2").arg(text).arg(*expert) : text;
}

void TensorErrorView::refreshHeatmap()
{
    if (!m_hasRow || m_column->currentIndex() < 0)
        return;
    const int expert = m_expert->isVisibleTo(this) ? m_expert->value() : -1;
    m_heatmap->setCell(m_comparison, m_row, static_cast<std::size_t>(m_column->currentIndex()),
                       expert >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(expert)) : std::nullopt);
}

// The heatmap and the scatter follow the chosen column; the histogram shows every column.
void TensorErrorView::refresh()
{
    if (!m_hasRow || m_column->currentIndex() < 0)
        return;
    refreshHeatmap();
    startScatter();
}

void TensorErrorView::startHistogram()
{
    m_histogramJobs.renew();
    m_histogram->clearGraphs();
    m_histogram->replot();
    if (!m_hasRow) {
        m_histogramPlaceholder->show(tr("Select a tensor in the table to see its error histograms."));
        return;
    }
    if (!m_results) {
        m_histogramPlaceholder->show(tr("The histograms follow when the comparison has finished."));
        return;
    }
    // Shared bins: one range covering the largest error of any column.
    double limit = 0.0;
    std::vector<std::size_t> columns;
    for (std::size_t c = 0; c < m_comparison->columns().size(); ++c) {
        if (const auto& metrics = m_results->cells[m_row][c]; metrics && std::isfinite(metrics->maxAbsError)) {
            limit = std::max(limit, metrics->maxAbsError);
            columns.push_back(c);
        }
    }
    if (columns.empty()) {
        m_histogramPlaceholder->show(tr("No column could be compared for this tensor."));
        return;
    }
    if (limit <= 0.0) {  // one spike at zero would read as a chart of something
        m_histogramPlaceholder->show(tr("No error: in every column this tensor's values equal the reference's (largest |error| 0)."));
        return;
    }
    // One chunk per column: its signed errors counted in kHistogramBins bins.
    BackgroundJob* job = m_histogramJobs.runChunks(
        static_cast<int>(columns.size()),
        [comparison = m_comparison, row = m_row, columns, limit, expert = shownExpert()](int chunk, const JobControl& control)
            -> gguf::Result<std::vector<std::uint64_t>> {
            const std::size_t column = columns[static_cast<std::size_t>(chunk)];
            std::vector<std::uint64_t> bins(kHistogramBins);
            for (const gguf::ElementRange& range : rangesOf(*comparison, row, column, expert)) {
                if (control.isCancelled())
                    return gguf::Error{"cancelled", gguf::Error::kNoOffset, {}};
                if (gguf::Status s = gguf::addSignedErrors(*comparison, row, column, range, limit, bins); !s)
                    return s.error();
            }
            return bins;
        },
        [this, columns, limit](const std::vector<std::vector<std::uint64_t>>& counts) { showHistogram(columns, counts, limit); },
        [this](const JobOutcome& outcome) {
            m_histogramPlaceholder->show(outcome.isCancelled() ? tr("Cancelled — click to compute") : tr("%1\n(click to try again)").arg(outcome.message()),
                                         [this]() { startHistogram(); });
        });
    m_progress->track(job, expertSuffix(tr("Error histograms")));
    m_histogramPlaceholder->show(tr("Computing…"));
}

void TensorErrorView::showHistogram(const std::vector<std::size_t>& columns, const std::vector<std::vector<std::uint64_t>>& counts, double limit)
{
    m_histogramPlaceholder->hide();
    const double width = 2.0 * limit / kHistogramBins;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        QCPGraph* graph = m_histogram->addGraph();
        graph->setName(comparisonColumnTitle(*m_comparison, columns[i]));
        graph->setProperty("comparisonColumn", QVariant::fromValue<qulonglong>(columns[i]));
        graph->setLineStyle(QCPGraph::lsStepCenter);
        graph->setPen(comparisonColumnPen(*m_comparison, columns[i], 1.5));
        for (int b = 0; b < kHistogramBins; ++b)
            graph->addData(-limit + (b + 0.5) * width, static_cast<double>(counts[i][static_cast<std::size_t>(b)]));
    }
    m_histogram->rescaleAxes();
    m_histogram->replot(QCustomPlot::rpQueuedReplot);
    emit histogramReady();
}

void TensorErrorView::startScatter()
{
    m_scatterJobs.renew();
    m_scatter->clearGraphs();
    m_scatterPoints.clear();
    m_scatter->replot();
    if (!m_hasRow || m_column->currentIndex() < 0)
        return;
    const auto column = static_cast<std::size_t>(m_column->currentIndex());
    const gguf::ComparisonCell& cell = m_comparison->rows()[m_row].cells[column];
    if (!cell.ok() || !gguf::blockScaleLayout(cell.typeId)) {
        m_scatterNote->setText(cell.ok() ? tr("%1 has no per-block scales, so there is no scatter.")
                                               .arg(QString::fromStdString(gguf::typeName(cell.typeId)))
                                         : QString::fromStdString(cell.problem));
        m_scatterPlaceholder->show(m_scatterNote->text());
        return;
    }
    m_scatterNote->setText(m_comparison->columns()[column].kind == gguf::ComparisonColumn::Kind::Simulated
                               ? tr("Scales of the reference quantized to %1 in memory.").arg(QString::fromStdString(gguf::typeName(cell.typeId)))
                               : tr("Scales stored in the file (%1).").arg(QString::fromStdString(gguf::typeName(cell.typeId))));
    std::vector<gguf::ElementRange> ranges = rangesOf(*m_comparison, m_row, column, shownExpert());
    if (ranges.size() > kMaxScatterRanges) {
        std::vector<gguf::ElementRange> sample;
        for (std::size_t i = 0; i < kMaxScatterRanges; ++i)
            sample.push_back(ranges[i * ranges.size() / kMaxScatterRanges]);
        ranges = std::move(sample);
    }
    BackgroundJob* job = m_scatterJobs.runChunks(
        static_cast<int>(ranges.size()),
        [comparison = m_comparison, row = m_row, column, ranges](int chunk, const JobControl&) -> gguf::Result<gguf::BlockErrorPoints> {
            gguf::BlockErrorPoints points;
            if (gguf::Status s = gguf::blockErrors(*comparison, row, column, ranges[static_cast<std::size_t>(chunk)], points); !s)
                return s.error();
            return points;
        },
        [this, ranges](const std::vector<gguf::BlockErrorPoints>& points) { showScatter(points, ranges); },
        [this](const JobOutcome& outcome) {
            if (outcome.isFailed())
                m_scatterNote->setText(outcome.message());
            m_scatterPlaceholder->show(outcome.isCancelled() ? tr("Cancelled — click to compute") : tr("%1\n(click to try again)").arg(outcome.message()),
                                       [this]() { startScatter(); });
        });
    m_progress->track(job, expertSuffix(tr("Per-block errors")));
    m_scatterPlaceholder->show(tr("Computing…"));
}

void TensorErrorView::showScatter(const std::vector<gguf::BlockErrorPoints>& points, const std::vector<gguf::ElementRange>& ranges)
{
    m_scatterPlaceholder->hide();
    QCPGraph* graph = m_scatter->addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(31, 119, 180, 120), 3));
    QVector<double> xs, ys;
    m_scatterPoints.clear();
    m_scatterBlockSize = 0;
    for (std::size_t chunk = 0; chunk < points.size(); ++chunk) {
        const gguf::BlockErrorPoints& part = points[chunk];
        m_scatterBlockSize = part.blockSize;
        for (std::size_t b = 0; b < part.scales.size(); ++b) {
            xs.push_back(part.scales[b]);
            ys.push_back(part.rmsError[b]);
            const std::uint64_t begin = chunk < ranges.size() ? ranges[chunk].begin : 0;
            m_scatterPoints.push_back({part.scales[b], part.rmsError[b], begin + b * part.blockSize});
        }
    }
    graph->setData(xs, ys);
    m_scatter->rescaleAxes();
    // A margin, so the extreme blocks (the ones most worth pointing at) are not cut at the edge.
    m_scatter->xAxis->scaleRange(1.05);
    m_scatter->yAxis->scaleRange(1.05);
    m_scatter->replot(QCustomPlot::rpQueuedReplot);
    emit scatterReady();
}
