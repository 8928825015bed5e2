#include "ui/experts/ExpertQuantErrorChart.h"

#include "ui/session/ExpertQuantErrorModel.h"
#include "ui/common/PlotReadout.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

void setUpExpertQuantErrorPlot(QCustomPlot* plot)
{
    plot->xAxis->setLabel(QCoreApplication::translate("ExpertQuantErrorView", "expert"));
    plot->legend->setVisible(true);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot->xAxis->setTicker(ticker);
    // Every type's bar at the expert under the pointer (the bars of one expert stand side by side).
    plotreadout::install(plot, [plot](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            plot, at.x,
            [plot](const plotreadout::KeyedPoint& point) {
                return QCoreApplication::translate("ExpertQuantErrorView", "expert %1: %2").arg(std::llround(point.key)).arg(plot->yAxis->label());
            },
            [](double value) { return plotreadout::number(value, false); });
    });
}

void plotExpertQuantError(QCustomPlot* plot, const ExpertQuantErrorModel& model, const QList<QBrush>& brushes)
{
    plot->clearPlottables();
    const int columns = model.typeColumnCount();
    auto* group = new QCPBarsGroup(plot);  // owned by the plot
    const double width = 0.8 / std::max(columns, 1);
    double low = 0.0;
    double high = 0.0;
    for (int column = 0; column < columns; ++column) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(model.columnLabels()[column]);
        const QBrush brush = column < brushes.size() ? brushes[column] : QBrush(Qt::gray);
        bars->setPen(brush.style() == Qt::SolidPattern ? QPen(Qt::NoPen) : QPen(brush.color()));  // a hatch needs its outline
        bars->setBrush(brush);
        bars->setWidth(width);
        bars->setBarsGroup(group);
        QVector<double> experts;
        QVector<double> values;
        for (std::uint64_t e = 0; e < model.expertCount(); ++e) {
            if (const auto& cell = model.metrics(e, column)) {
                const double value = ExpertQuantErrorModel::metricValue(*cell, model.metric());
                if (!std::isfinite(value))
                    continue;
                experts << static_cast<double>(e);
                values << value;
                low = std::min(low, value);
                high = std::max(high, value);
            }
        }
        bars->setData(experts, values, true);
    }
    plot->yAxis->setLabel(ExpertQuantErrorModel::metricName(model.metric()));
    plot->xAxis->setRange(-0.75, std::max<double>(1.0, static_cast<double>(model.expertCount())) - 0.25);
    plot->yAxis->setRange(low * 1.08, high > low ? high * 1.08 : low + 1.0);
    plot->replot(QCustomPlot::rpQueuedReplot);
}
