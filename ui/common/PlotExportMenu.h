#pragma once
// Every chart exports: a plot given a title function here gets "Export Chart…" on right-click
// (PNG, SVG or PDF, by exportPlot), and the file carries the title as the plot is at that moment:
// what the chart shows (model, tensor, expert, aggregate, columns, reference), worded by the
// view that owns it, so an exported image says what it is without the window around it.

#include <QString>
#include <functional>

class QCustomPlot;
class QMenu;

using PlotTitle = std::function<QString()>;

// `title` is asked at export time. With `ownMenu` false the plot keeps its owner's context menu,
// which adds the action itself (addPlotExportAction).
void addPlotExport(QCustomPlot* plot, PlotTitle title, bool ownMenu = true);
// Whether `plot` was given an export, and the title an export would carry now (empty without).
bool hasPlotExport(const QCustomPlot* plot);
QString plotExportTitle(const QCustomPlot* plot);
// Exports `plot` to `path` with its title; empty on success, else what went wrong.
QString exportPlotAsShown(QCustomPlot* plot, const QString& path);
// "Export Chart…" into an owner's own menu: asks for a file, exports, warns on failure.
void addPlotExportAction(QMenu* menu, QCustomPlot* plot);
