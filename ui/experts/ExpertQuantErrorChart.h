#pragma once
// The Quantization error tab's chart: per expert, one bar per chosen type, of the model's chosen
// metric, grouped by expert, each type in its own colour. Experts not computed yet (or whose figure is not finite) have no bar.

#include <QBrush>
#include <QList>

class QCustomPlot;
class ExpertQuantErrorModel;

// Axes, ticks and legend, once for a new plot.
void setUpExpertQuantErrorPlot(QCustomPlot* plot);
// The bars for what `model` holds now, replacing the previous ones; column i's bars are filled
// with brushes[i] (the column's colour on the other tabs).
void plotExpertQuantError(QCustomPlot* plot, const ExpertQuantErrorModel& model, const QList<QBrush>& brushes);
