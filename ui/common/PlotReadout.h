#pragma once
// The readout under the pointer of any chart: one place that turns a mouse move into a tool tip,
// keeps the text as the plot's current readout (tests read it; Ctrl+C on the plot copies it), and
// the small pieces every chart's text is made of. A chart only says what lies at a plot
// coordinate, from the same data it drew; this file decides nothing about any one chart.
//
// A mark that stands for several rows, columns, bins or layers names the whole range ("rows
// 198–199, mean …"), never one of them: spanText() writes the range, and the chart says which
// aggregate its value is.

#include "core/analysis/HeatmapReducer.h"
#include "core/analysis/Statistics.h"

#include <QPointF>
#include <QString>
#include <cstdint>
#include <functional>
#include <optional>

class QCPAbstractPlottable;
class QCPAxisRect;
class QCPColorMap;
class QCustomPlot;

namespace plotreadout {

// Where the pointer is: the axis rect under it (a plot may stack several) and the coordinates on
// that rect's bottom and left axes.
struct Pointer {
    const QCPAxisRect* rect = nullptr;
    double x = 0.0;
    double y = 0.0;
};
// The words for what lies under the pointer; empty when nothing is there (the tool tip hides).
using Text = std::function<QString(const Pointer& pointer)>;

// Shows `text` of the point under the pointer on every mouse move over `plot` (mouse tracking is
// turned on), and lets Ctrl+C on the focused plot copy the current readout.
void install(QCustomPlot* plot, Text text);
// The same for a plot without an axis rect under the pointer (a colour bar alone): `text` gets
// the pointer in the plot's pixels.
void installAtPixels(QCustomPlot* plot, std::function<QString(const QPointF& pixel)> text);
// For charts that work out their own hover (a label under a heatmap): records `text` as the
// plot's current readout without a tool tip.
void publish(QCustomPlot* plot, const QString& text);
// The last readout of `plot`: what the pointer was last over; empty before any or off the data.
QString current(const QCustomPlot* plot);

// A data point of a keyed chart (QCPGraph or QCPBars) and the key interval it stands for: half
// the step to its neighbours on each side (a histogram bar: its bin).
struct KeyedPoint {
    int index = 0;
    double key = 0.0;
    double value = 0.0;
    double lower = 0.0;  // the interval of keys the point stands for
    double upper = 0.0;
};
// The point of `plottable` whose interval holds `x`; nullopt off the data or for another kind.
std::optional<KeyedPoint> pointAt(const QCPAbstractPlottable* plottable, double x);

// The cell of `map` under (x, y): its column and row in the map's data, and its value.
struct MapCell {
    int column = 0;
    int row = 0;
    double value = 0.0;
};
std::optional<MapCell> cellAt(const QCPColorMap* map, double x, double y);

// The source rows (or columns) [first, last] of the reduced cell drawn under plot coordinate
// `coord`, when `cells` cells are laid evenly over [begin - 0.5, end - 0.5) as the heatmaps draw
// them, and which cell it is. A cell holds the rows gguf::heatmapCellStart gives it, so a readout
// never names a row the value is not of.
struct CellSpan {
    std::uint32_t cell = 0;
    std::uint64_t first = 0;
    std::uint64_t last = 0;
};
std::optional<CellSpan> spanAt(double coord, std::uint64_t begin, std::uint64_t end, std::uint32_t cells);

// What a reduced cell of several weights holds: "mean", "max |value|", "min", "max".
QString aggregateName(gguf::CellAggregate aggregate);
// The readout of one cell of a reduced matrix: "rows 6–9, columns 0–15\nmean: 0.0123", or the one
// weight's value to the last digit when the cell is one weight.
QString matrixCell(const CellSpan& rows, const CellSpan& columns, gguf::CellAggregate aggregate, float value);

// "row 7" or "rows 6–9": `one` and `many` are the words for one and for several.
QString spanText(const QString& one, const QString& many, std::uint64_t first, std::uint64_t last);
// A histogram bin's readout: "bin 3 of 256: <what> in [a, b)" and its count of `units` (the last
// bin holds its upper edge: "[a, b]"), with its share of all counted values.
QString histogramBin(const gguf::Histogram& histogram, std::uint32_t bin, const QString& what, const QString& units);
// A number as the tables print it (shortest form that reads back, as a float when `single`).
QString number(double value, bool single = true);
// One line per visible, named graph or bars of `plot` with a point at x: "name: value", under the
// key's words (keyText of the first series' point there: its key, or the interval it stands
// for). For charts whose series share one key axis (one line per file over the layers); empty
// when no series has a point there.
QString seriesAt(QCustomPlot* plot, double x, const std::function<QString(const KeyedPoint& point)>& keyText,
                 const std::function<QString(double value)>& valueText);

}  // namespace plotreadout
