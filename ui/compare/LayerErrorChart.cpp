#include "ui/compare/LayerErrorChart.h"

#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/session/ComparisonColumnTitle.h"

#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"

#include "ui/session/ComparisonMetric.h"
#include "core/compare/LayerErrorMetrics.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>
#include <set>

LayerErrorChart::LayerErrorChart(QWidget* parent)
    : QWidget(parent), m_metric(new QComboBox(this)), m_kind(new QComboBox(this)), m_plot(new QCustomPlot(this))
{
    followPalette(m_plot);
    m_metric->setObjectName(QStringLiteral("layerMetricCombo"));
    m_kind->setObjectName(QStringLiteral("layerKindCombo"));
    m_plot->setObjectName(QStringLiteral("layerErrorPlot"));
    m_placeholder = new PlotPlaceholder(m_plot);
    addPlotExport(m_plot, [this]() {
        if (!m_comparison)
            return tr("Error per layer");
        return tr("%1 per layer, %2: %3").arg(m_metric->currentText(), m_kind->currentIndex() <= 0 ? tr("all tensor kinds") : tr("%1 tensors").arg(m_kind->currentText()),
                                              comparisonSubject(*m_comparison));
    });
    for (const ComparisonMetric& metric : comparisonMetrics())
        m_metric->addItem(metric.displayName());
    connect(m_metric, &QComboBox::currentIndexChanged, this, &LayerErrorChart::rebuild);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &LayerErrorChart::rebuild);

    m_plot->xAxis->setLabel(tr("layer (blk.N)"));
    m_plot->legend->setVisible(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    // Each file's figure of the layer under the pointer, under the figure's name (the axis label
    // says when it is the worst tensor's).
    plotreadout::install(m_plot, [this](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            m_plot, at.x,
            [this](const plotreadout::KeyedPoint& point) {
                return tr("blk.%1 · %2 · %3").arg(std::llround(point.key)).arg(m_kind->currentIndex() <= 0 ? tr("all tensor kinds") : m_kind->currentText(),
                                                                           m_plot->yAxis->label());
            },
            [](double value) { return plotreadout::number(value, false); });
    });

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric:"), this));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("Tensor kind:"), this));
    controls->addWidget(m_kind);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
}

void LayerErrorChart::setComparison(std::shared_ptr<const gguf::ModelComparison> comparison,
                                    std::shared_ptr<const gguf::ComparisonResults> results)
{
    m_comparison = std::move(comparison);
    m_results = std::move(results);
    {
        // The weighted figures exist only with an importance matrix; the plain ones always.
        const QSignalBlocker blocker(m_metric);
        const auto wanted = static_cast<int>(m_comparison && m_comparison->importance() ? comparisonMetricsWithImportance().size()
                                                                                        : comparisonMetrics().size());
        while (m_metric->count() > wanted)
            m_metric->removeItem(m_metric->count() - 1);
        while (m_metric->count() < wanted)
            m_metric->addItem(comparisonMetricsWithImportance()[static_cast<std::size_t>(m_metric->count())].displayName());
    }
    std::set<std::string> kinds;
    if (m_comparison)
        for (const gguf::ComparisonRow& row : m_comparison->rows())
            if (row.nameParts.layer)
                kinds.insert(row.nameParts.kind);
    const QString current = m_kind->currentData().toString();
    {
        const QSignalBlocker blocker(m_kind);
        m_kind->clear();
        m_kind->addItem(tr("All kinds"), QString());
        for (const std::string& kind : kinds)
            m_kind->addItem(QString::fromStdString(kind), QString::fromStdString(kind));
        m_kind->setCurrentIndex(std::max(0, m_kind->findData(current)));
    }
    rebuild();
}

void LayerErrorChart::setMetric(int metric)
{
    m_metric->setCurrentIndex(metric);
}

void LayerErrorChart::setKind(const QString& kind)
{
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(kind)));
}

void LayerErrorChart::rebuild()
{
    m_plot->clearGraphs();
    if (!m_comparison || !m_results || m_metric->currentIndex() < 0) {
        m_placeholder->show(m_comparison ? tr("The chart follows when the comparison has finished.") : tr("Nothing was compared."));
        m_plot->replot();
        return;
    }
    const ComparisonMetric& metric = comparisonMetricsWithImportance()[static_cast<std::size_t>(m_metric->currentIndex())];
    const gguf::ErrorMetricInfo* info = metric.info;
    const std::string kind = m_kind->currentData().toString().toStdString();
    const bool worstOfLayer = kind.empty() && info && info->combination == gguf::MetricCombination::WorstPart;
    m_plot->yAxis->setLabel(worstOfLayer ? tr("%1 (worst tensor of the layer)").arg(metric.displayName()) : metric.displayName());

    bool anyPoint = false;
    bool anyError = false;
    for (std::size_t c = 0; c < m_comparison->columns().size(); ++c) {
        QCPGraph* graph = m_plot->addGraph();
        graph->setName(comparisonColumnTitle(*m_comparison, c));
        const QColor colour = comparisonColumnColour(*m_comparison, c);
        graph->setPen(comparisonColumnPen(*m_comparison, c, 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 6));
        for (const gguf::LayerErrorMetrics& layer : gguf::layerErrorMetrics(*m_comparison, *m_results, c, kind)) {
            const double value = metric.valueIn(layer.metrics);
            graph->addData(layer.layer, value);
            anyPoint = true;
            anyError = anyError || !(layer.metrics.maxAbsError == 0.0);  // whatever the metric, by the error itself
        }
    }
    // A row of zeros (the f32 norms, kept as they were) or no layer at all: words, not a flat line.
    const QString kindName = kind.empty() ? tr("any tensor kind") : tr("the %1 tensors").arg(QString::fromStdString(kind));
    if (!anyPoint)
        m_placeholder->show(tr("No layer of %1 was compared.").arg(kindName));
    else if (!anyError)
        m_placeholder->show(tr("No error in %1: every compared value equals the reference's, in every layer.").arg(kindName));
    else
        m_placeholder->hide();
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(m_plot->xAxis->range().lower - 0.5, m_plot->xAxis->range().upper + 0.5);
    m_plot->yAxis->scaleRange(1.1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString LayerErrorChart::placeholderText() const
{
    return m_placeholder->text();
}
