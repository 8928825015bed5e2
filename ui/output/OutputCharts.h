#pragma once
// The Output tab's three charts, drawn from a finished run: residual-stream drift per layer (one
// line per compared model, in the column's colour and name of every other tab), the histogram of
// per-position KL divergence of one model, and that model's router disagreement map. Each chart
// names the model it shows in a title row, so a chart is never read as another model's.

#include "core/forward/OutputComparisonRun.h"

#include <QBrush>
#include <QList>
#include <QPen>
#include <QString>

class QCustomPlot;

// Axes, tickers and labels, once per plot.
void setUpDriftPlot(QCustomPlot* plot);
void setUpKldHistogram(QCustomPlot* plot);
void setUpRouterMap(QCustomPlot* plot);

// `names` and `pens`: one per result comparison, in order.
void drawDrift(QCustomPlot* plot, const gguf::OutputRunResult& result, const QStringList& names, const QList<QPen>& pens);
void drawKldHistogram(QCustomPlot* plot, const gguf::OutputComparison& comparison, const QString& name, const QBrush& brush);
// Returns false (and leaves the map empty) for a model without experts.
bool drawRouterMap(QCustomPlot* plot, const gguf::OutputComparison& comparison, const QString& name);
// Removes what a draw put on `plot`, so nothing of an older run stays under a placeholder.
void clearOutputChart(QCustomPlot* plot);
