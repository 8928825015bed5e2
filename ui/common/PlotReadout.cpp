#include "ui/common/PlotReadout.h"

#include "core/gguf/MetadataFormat.h"

#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QMouseEvent>
#include <QShortcut>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace plotreadout {
namespace {

constexpr char kReadoutProperty[] = "plotReadout";

// The key interval of data point `index` among `count` sorted keys: halfway to each neighbour; a
// lone point (or a bar) takes `halfWidth` on both sides.
template <typename Container>
KeyedPoint pointInterval(const Container& data, int index, double halfWidth)
{
    const int count = data.size();
    const double key = data.at(index)->key;
    KeyedPoint point{index, key, data.at(index)->value, key - halfWidth, key + halfWidth};
    if (index > 0)
        point.lower = (data.at(index - 1)->key + key) / 2;
    else if (count > 1)
        point.lower = key - (data.at(1)->key - key) / 2;
    if (index + 1 < count)
        point.upper = (key + data.at(index + 1)->key) / 2;
    else if (count > 1)
        point.upper = key + (key - data.at(index - 1)->key) / 2;
    return point;
}

// The point whose interval holds x. A graph's line joins its points, so the nearest point is the
// one under the pointer; a bar is hit only where it is drawn (`barHalf` each side of its key, the
// whole group for grouped bars), so a layer without a bar reads as nothing, not as its neighbour.
template <typename Container>
std::optional<KeyedPoint> findPoint(const Container& data, double x, std::optional<double> barHalf)
{
    if (data.isEmpty() || !std::isfinite(x))
        return std::nullopt;
    // The first key at or after x, and its neighbours: x lies in one of their intervals.
    auto it = data.findBegin(x, false);
    const int found = static_cast<int>(it - data.constBegin());
    for (int index : {found - 1, found, found + 1}) {
        if (index < 0 || index >= data.size())
            continue;
        const KeyedPoint point = pointInterval(data, index, barHalf.value_or(0.5));
        const double lower = barHalf ? point.key - *barHalf : point.lower;
        const double upper = barHalf ? point.key + *barHalf : point.upper;
        if (x >= lower && x < upper)
            return point;
    }
    return std::nullopt;
}

}  // namespace

void install(QCustomPlot* plot, Text text)
{
    installAtPixels(plot, [plot, text = std::move(text)](const QPointF& at) {
        QCPAxisRect* rect = plot->axisRectAt(at);
        if (!rect || !rect->rect().contains(at.toPoint()))
            return QString();
        return text(Pointer{rect, rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x()), rect->axis(QCPAxis::atLeft)->pixelToCoord(at.y())});
    });
}

void installAtPixels(QCustomPlot* plot, std::function<QString(const QPointF& pixel)> text)
{
    plot->setMouseTracking(true);
    QObject::connect(plot, &QCustomPlot::mouseMove, plot, [plot, text = std::move(text)](QMouseEvent* event) {
        const QPointF at = event->position();
        const QString words = text(at);
        publish(plot, words);
        if (words.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(plot->mapToGlobal(at.toPoint()), words, plot);
    });
    auto* copy = new QShortcut(QKeySequence::Copy, plot);
    copy->setContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QShortcut::activated, plot, [plot]() {
        if (const QString words = current(plot); !words.isEmpty())
            QApplication::clipboard()->setText(words);
    });
}

void publish(QCustomPlot* plot, const QString& text)
{
    plot->setProperty(kReadoutProperty, text);
}

QString current(const QCustomPlot* plot)
{
    return plot->property(kReadoutProperty).toString();
}

std::optional<KeyedPoint> pointAt(const QCPAbstractPlottable* plottable, double x)
{
    if (const auto* bars = qobject_cast<const QCPBars*>(plottable)) {
        const int group = bars->barsGroup() ? std::max(1, bars->barsGroup()->size()) : 1;
        return findPoint(*bars->data(), x, bars->width() * group / 2);
    }
    if (const auto* graph = qobject_cast<const QCPGraph*>(plottable))
        return findPoint(*graph->data(), x, std::nullopt);
    return std::nullopt;
}

std::optional<MapCell> cellAt(const QCPColorMap* map, double x, double y)
{
    QCPColorMapData* data = map->data();
    if (!data || data->keySize() <= 0 || data->valueSize() <= 0)
        return std::nullopt;
    // coordToCell rounds to the nearest cell centre; outside the outer half-cells is off the map.
    int column = 0;
    int row = 0;
    data->coordToCell(x, y, &column, &row);
    if (column < 0 || column >= data->keySize() || row < 0 || row >= data->valueSize())
        return std::nullopt;
    double cellX = 0.0;
    double cellY = 0.0;
    data->cellToCoord(column, row, &cellX, &cellY);
    const double halfWidth = data->keySize() > 1 ? data->keyRange().size() / (data->keySize() - 1) / 2 : 0.5;
    const double halfHeight = data->valueSize() > 1 ? data->valueRange().size() / (data->valueSize() - 1) / 2 : 0.5;
    if (std::fabs(x - cellX) > halfWidth || std::fabs(y - cellY) > halfHeight)
        return std::nullopt;
    return MapCell{column, row, data->cell(column, row)};
}

std::optional<CellSpan> spanAt(double coord, std::uint64_t begin, std::uint64_t end, std::uint32_t cells)
{
    if (end <= begin || cells == 0)
        return std::nullopt;
    const double at = (coord - (static_cast<double>(begin) - 0.5)) * cells / static_cast<double>(end - begin);
    if (!(at >= 0.0 && at < static_cast<double>(cells)))
        return std::nullopt;
    const auto index = static_cast<std::uint32_t>(at);
    return CellSpan{index, gguf::heatmapCellStart(begin, end, cells, index), gguf::heatmapCellStart(begin, end, cells, index + 1) - 1};
}

QString aggregateName(gguf::CellAggregate aggregate)
{
    switch (aggregate) {
    case gguf::CellAggregate::Mean: return QCoreApplication::translate("PlotReadout", "mean");
    case gguf::CellAggregate::AbsMax: return QCoreApplication::translate("PlotReadout", "max |value|");
    case gguf::CellAggregate::Min: return QCoreApplication::translate("PlotReadout", "min");
    case gguf::CellAggregate::Max: return QCoreApplication::translate("PlotReadout", "max");
    }
    return {};
}

QString matrixCell(const CellSpan& rows, const CellSpan& columns, gguf::CellAggregate aggregate, float value)
{
    const QString where = spanText(QCoreApplication::translate("PlotReadout", "row"), QCoreApplication::translate("PlotReadout", "rows"), rows.first, rows.last)
        + QStringLiteral(", ")
        + spanText(QCoreApplication::translate("PlotReadout", "column"), QCoreApplication::translate("PlotReadout", "columns"), columns.first, columns.last);
    if (rows.first == rows.last && columns.first == columns.last)
        return QStringLiteral("%1\n%2").arg(where, number(value));
    return QStringLiteral("%1\n%2: %3").arg(where, aggregateName(aggregate), number(value));
}

QString spanText(const QString& one, const QString& many, std::uint64_t first, std::uint64_t last)
{
    return first == last ? QStringLiteral("%1 %2").arg(one).arg(first) : QStringLiteral("%1 %2\u2013%3").arg(many).arg(first).arg(last);
}

QString histogramBin(const gguf::Histogram& histogram, std::uint32_t bin, const QString& what, const QString& units)
{
    const auto bins = static_cast<std::uint32_t>(histogram.counts().size());
    if (bin >= bins)
        return {};
    const bool last = bin + 1 == bins;
    std::uint64_t total = 0;
    for (std::uint64_t count : histogram.counts())
        total += count;
    const std::uint64_t count = histogram.counts()[bin];
    const double share = total ? 100.0 * static_cast<double>(count) / static_cast<double>(total) : 0.0;
    return QCoreApplication::translate("PlotReadout", "bin %1 of %2: %3 in [%4, %5%6\n%7 %8 (%9% of the binned)")
        .arg(bin + 1)
        .arg(bins)
        .arg(what, number(histogram.binLower(bin)), number(last ? histogram.upper() : histogram.binLower(bin + 1)),
             last ? QStringLiteral("]") : QStringLiteral(")"))
        .arg(count)
        .arg(units, QString::number(share, 'g', 4));
}

QString number(double value, bool single)
{
    return QString::fromStdString(gguf::formatFloat(value, single));
}

QString seriesAt(QCustomPlot* plot, double x, const std::function<QString(const KeyedPoint& point)>& keyText,
                 const std::function<QString(double value)>& valueText)
{
    QString header;
    QStringList lines;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        const QCPAbstractPlottable* plottable = plot->plottable(i);
        if (!plottable->visible())
            continue;
        const std::optional<KeyedPoint> point = pointAt(plottable, x);
        if (!point)
            continue;
        if (header.isEmpty())
            header = keyText(*point);
        lines << (plottable->name().isEmpty() ? valueText(point->value)
                                              : QStringLiteral("%1: %2").arg(plottable->name(), valueText(point->value)));
    }
    if (lines.isEmpty())
        return {};
    return header + QLatin1Char('\n') + lines.join(QLatin1Char('\n'));
}

}  // namespace plotreadout
