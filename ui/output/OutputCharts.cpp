#include "ui/output/OutputCharts.h"

#include "ui/common/LogAxisTicker.h"
#include "ui/common/PlotReadout.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {

constexpr int kHistogramBins = 30;
constexpr char kKldBinWidth[] = "kldBinWidth";  // the plot's property: its histogram's bin width
constexpr double kDriftFloor = 1e-12;  // the log axis cannot draw 0

QString tr(const char* text)
{
    return QCoreApplication::translate("OutputErrorTab", text);
}

// The plot's title row (added on first use): which model the chart shows.
void setChartTitle(QCustomPlot* plot, const QString& text)
{
    auto* title = plot->findChild<QCPTextElement*>(QStringLiteral("chartTitle"));
    if (!title) {
        plot->plotLayout()->insertRow(0);
        title = new QCPTextElement(plot, text);
        title->setObjectName(QStringLiteral("chartTitle"));
        plot->plotLayout()->addElement(0, 0, title);
    }
    title->setText(text);
}

QSharedPointer<QCPAxisTickerFixed> wholeNumberTicker()
{
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    return ticker;
}

}  // namespace

void setUpDriftPlot(QCustomPlot* plot)
{
    plot->xAxis->setLabel(tr("layer (blk.N)"));
    plot->yAxis->setLabel(tr("residual stream relative RMSE"));
    LogAxisTicker::install(plot->yAxis);  // 1-2-5 labels: QCPAxisTickerLog labelled 0.03-0.3 as "0.1" alone
    plot->xAxis->setTicker(wholeNumberTicker());
    plot->legend->setVisible(true);
    plotreadout::install(plot, [plot](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            plot, at.x, [](const plotreadout::KeyedPoint& point) { return tr("blk.%1 output: residual stream relative RMSE").arg(std::llround(point.key)); },
            // drawDrift lifts a zero to 1e-12 so that the log axis can draw it.
            [](double value) { return value <= kDriftFloor ? tr("0 (drawn at %1)").arg(kDriftFloor) : plotreadout::number(value, false); });
    });
}

void setUpKldHistogram(QCustomPlot* plot)
{
    plot->xAxis->setLabel(tr("KL divergence per position (nats)"));
    plot->yAxis->setLabel(tr("positions"));
    plotreadout::install(plot, [plot](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            plot, at.x,
            [plot](const plotreadout::KeyedPoint& point) {
                // The bins drawKldHistogram counted: equal, from 0; the last holds the maximum.
                const double width = plot->property(kKldBinWidth).toDouble();
                const bool last = point.index + 1 == kHistogramBins;
                return tr("KL divergence in [%1, %2%3 nats")
                    .arg(plotreadout::number(point.index * width), plotreadout::number((point.index + 1) * width), last ? QStringLiteral("]") : QStringLiteral(")"));
            },
            [](double count) { return count == 1.0 ? tr("1 position") : tr("%1 positions").arg(static_cast<qulonglong>(count)); });
    });
}

void setUpRouterMap(QCustomPlot* plot)
{
    plot->xAxis->setLabel(tr("token position"));
    plot->yAxis->setLabel(tr("layer"));
    plot->yAxis->setTicker(wholeNumberTicker());
    plotreadout::install(plot, [plot](const plotreadout::Pointer& at) -> QString {
        auto* map = plot->plottableCount() > 0 ? qobject_cast<QCPColorMap*>(plot->plottable(0)) : nullptr;
        const auto cell = map ? plotreadout::cellAt(map, at.x, at.y) : std::nullopt;
        if (!cell)
            return {};
        const QString where = tr("blk.%1, token position %2").arg(cell->row).arg(cell->column);
        if (std::isnan(cell->value))
            return tr("%1: no router comparison (dense in either model)").arg(where);
        return cell->value > 0.5 ? tr("%1: the chosen experts differ from the reference's").arg(where)
                                 : tr("%1: the same experts as the reference").arg(where);
    });
}

void drawDrift(QCustomPlot* plot, const gguf::OutputRunResult& result, const QStringList& names, const QList<QPen>& pens)
{
    plot->clearGraphs();
    double low = 1.0, high = 1e-12;
    for (std::size_t i = 0; i < result.comparisons.size(); ++i) {
        const auto& layers = result.comparisons[i].layers;
        QCPGraph* graph = plot->addGraph();
        const auto at = static_cast<qsizetype>(i);
        graph->setName(at < names.size() ? names[at] : QString::fromStdString(result.labels[i]));
        const QPen pen = at < pens.size() ? pens[at] : QPen(Qt::gray, 2);
        graph->setPen(pen);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, pen.color(), pen.color(), 6));
        for (std::size_t l = 0; l < layers.size(); ++l) {
            const double v = std::max(layers[l].relativeRmse, kDriftFloor);
            graph->addData(static_cast<double>(l), v);
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    setChartTitle(plot, tr("Drift per layer: %1").arg(names.join(QStringLiteral(", "))));
    const auto layerCount = result.comparisons.empty() ? 0 : result.comparisons.front().layers.size();
    plot->xAxis->setRange(-0.5, static_cast<double>(layerCount) - 0.5);
    plot->yAxis->setRange(low / 2, high * 2);
    plot->replot();
}

void drawKldHistogram(QCustomPlot* plot, const gguf::OutputComparison& comparison, const QString& name, const QBrush& brush)
{
    plot->clearPlottables();
    const double maximum = std::max(comparison.kld.maximum, 1e-12);
    QVector<double> centres(kHistogramBins), counts(kHistogramBins, 0.0);
    const double width = maximum / kHistogramBins;
    plot->setProperty(kKldBinWidth, width);
    for (int b = 0; b < kHistogramBins; ++b)
        centres[b] = (b + 0.5) * width;
    for (const auto& p : comparison.positions)
        counts[std::min(kHistogramBins - 1, static_cast<int>(p.kld / width))] += 1.0;
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(name);
    bars->setWidth(width * 0.9);
    bars->setData(centres, counts);
    bars->setBrush(brush);
    bars->setPen(QPen(brush.color()));
    setChartTitle(plot, tr("KL divergence per position: %1").arg(name));
    plot->xAxis->setRange(0, maximum);
    plot->yAxis->setRange(0, *std::max_element(counts.begin(), counts.end()) * 1.1 + 1);
    plot->replot();
}

bool drawRouterMap(QCustomPlot* plot, const gguf::OutputComparison& comparison, const QString& name)
{
    plot->clearPlottables();
    setChartTitle(plot, tr("Router disagreement: %1").arg(name));
    // A layer without a router comparison (dense in either model) has no row of tokens.
    std::size_t widest = 0;
    for (const auto& row : comparison.routingChanged)
        widest = std::max(widest, row.size());
    if (!comparison.mixtureOfExperts || widest == 0) {
        plot->replot();
        return false;
    }
    const int layers = static_cast<int>(comparison.routingChanged.size());
    const int tokens = static_cast<int>(widest);
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    map->data()->setSize(tokens, layers);
    map->data()->setRange(QCPRange(0, tokens - 1), QCPRange(0, layers - 1));
    for (int l = 0; l < layers; ++l) {
        const auto& row = comparison.routingChanged[static_cast<std::size_t>(l)];
        for (int t = 0; t < tokens; ++t)
            map->data()->setCell(t, l, static_cast<std::size_t>(t) < row.size() ? row[static_cast<std::size_t>(t)] : std::nan(""));
    }
    QCPColorGradient gradient;
    gradient.setColorStopAt(0.0, QColor(0xf0f0f0));
    gradient.setColorStopAt(1.0, QColor(0xd62728));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);  // dense layers stay blank
    map->setGradient(gradient);
    map->setDataRange(QCPRange(0, 1));
    map->setInterpolate(false);
    plot->xAxis->setRange(-0.5, tokens - 0.5);
    plot->yAxis->setRange(-0.5, layers - 0.5);
    plot->replot();
    return true;
}

void clearOutputChart(QCustomPlot* plot)
{
    plot->clearPlottables();
    plot->replot();
}
