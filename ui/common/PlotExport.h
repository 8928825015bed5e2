#pragma once
// Saves a plot as PNG, SVG or PDF (chosen by the file's suffix), written to a temporary file
// and renamed into place like every other export.

#include <QString>

class QCustomPlot;

// Returns an empty string on success, else what went wrong. A non-empty `title` (what the plot
// shows: tensor, file, type) is drawn above the plot in the file only; the widget is unchanged.
QString exportPlot(QCustomPlot* plot, const QString& path, int width = 0, int height = 0, const QString& title = {});
