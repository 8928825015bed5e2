#pragma once
// QCustomPlot paints with fixed black-on-white defaults; these make a plot follow the widget
// palette instead, so plots are readable under a dark desktop theme and change with it.

class QCustomPlot;

// Colours the plot's background, axes, tick labels, grids, legends, colour scales and text
// elements from its palette (Base, WindowText). Elements added later are coloured on the next
// replot.
void applyPlotPalette(QCustomPlot* plot);

// Applies the palette before every replot and replots when the palette changes.
void followPalette(QCustomPlot* plot);
