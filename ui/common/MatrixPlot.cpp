#include "ui/common/MatrixPlot.h"

#include "ui/common/DivergingGradient.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {
// Rows and columns are whole numbers: ticks step by 1, 2, 5, 10, … and never fall between two
// elements, whatever the zoom.
class IntegerTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override { return std::max(1.0, std::round(QCPAxisTicker::getTickStep(range))); }
    int getSubTickCount(double tickStep) override { return tickStep < 2.0 ? 0 : QCPAxisTicker::getSubTickCount(tickStep); }
};
}  // namespace

void setWholeNumberTicks(QCPAxis* axis)
{
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new IntegerTicker));
    axis->setNumberFormat(QStringLiteral("f"));
    axis->setNumberPrecision(0);
}

MatrixPlotParts setUpMatrixPlot(QCustomPlot* plot, const QString& scaleLabel)
{
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setupFullAxesBox(true);
    plot->xAxis->setLabel(QCoreApplication::translate("MatrixPlot", "column (ne[0])"));
    plot->yAxis->setLabel(QCoreApplication::translate("MatrixPlot", "row"));
    plot->yAxis->setRangeReversed(true);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis})
        setWholeNumberTicks(axis);
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    map->setInterpolate(false);
    auto* scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(0, 1, scale);
    scale->setType(QCPAxis::atRight);
    if (!scaleLabel.isEmpty())
        scale->axis()->setLabel(scaleLabel);
    map->setColorScale(scale);
    map->setGradient(divergingGradient());
    // The colour bar spans exactly the matrix's height.
    auto* marginGroup = new QCPMarginGroup(plot);
    plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    return {map, scale};
}
