#pragma once
// The plot of a tensor-shaped matrix shared by the weight and the error heatmaps: rows downward,
// columns across, a colour map on the diverging scale with its colour bar at the right, drag and
// wheel zoom, whole-number ticks on both axes. The views differ only in what they fill the map with.

class QCPAxis;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QString;

struct MatrixPlotParts {
    QCPColorMap* map;
    QCPColorScale* scale;
};

MatrixPlotParts setUpMatrixPlot(QCustomPlot* plot, const QString& scaleLabel);
// Ticks that step by 1, 2, 5, 10, … and never fall between two rows or columns, labelled as
// whole numbers.
void setWholeNumberTicks(QCPAxis* axis);
