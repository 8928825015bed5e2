#pragma once
// The colour scales of the heatmaps besides the diverging one (DivergingGradient.h), and the
// ranges they are stretched over. A magnitude (|x|, an abs-max aggregate) is one-sided: white at
// zero, darkening red towards the top, so no half of the bar stays unused. A statistic that does
// not start at zero (an RMS, a scale) gets a sequential scale whose two ends are both dark or
// saturated enough to read on a white page (gpThermal's top is white on white).
// NaN is transparent on all of them; hatchUndefinedCells() shows what is under it as hatching.

#include <qcustomplot.h>

QCPColorGradient magnitudeGradient();
QCPColorGradient sequentialGradient();

// Paints the plot's axis rect with a grey hatch: cells a transparent-NaN map leaves undrawn read
// as "undefined", not as a colour of the scale.
void hatchUndefinedCells(QCustomPlot* plot);

// The `percent` percentile of |x| over the finite values (a sample of at most about a million
// of them for larger inputs); 0 when there is none.
double absPercentile(const float* values, std::size_t count, double percent);
// The largest finite |x|; 0 when there is none.
double absMaximum(const float* values, std::size_t count);
