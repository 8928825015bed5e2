#include "common/MatrixPlot.h"

#include "common/DivergingGradient.h"

#include <QCoreApplication>
#include <qcustomplot.h>

MatrixPlotParts setUpMatrixPlot(QCustomPlot* plot, const QString& scaleLabel)
{
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setupFullAxesBox(true);
    plot->xAxis->setLabel(QCoreApplication::translate("MatrixPlot", "column (ne[0])"));
    plot->yAxis->setLabel(QCoreApplication::translate("MatrixPlot", "row"));
    plot->yAxis->setRangeReversed(true);
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
