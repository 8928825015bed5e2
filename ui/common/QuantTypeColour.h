#pragma once
// One colour per quant type, the same in every run and every view (table header, per-layer
// chart, error histograms): Q4_K is always the same orange whatever columns a comparison has or
// in which order. Common types have hand-picked, distinguishable colours; any other type gets
// one derived from its name, so it is stable too.

#include <QColor>
#include <QIcon>
#include <QPen>
#include <cstdint>

QColor quantTypeColour(std::uint32_t typeId);
// A small filled square of the type's colour, for headers and combo boxes.
QIcon quantTypeSwatch(std::uint32_t typeId);
// A line of the type's colour; dashed for a simulated column, so a file and its simulation of
// the same type share the colour and stay apart.
QPen quantTypePen(std::uint32_t typeId, bool simulated, double width);
