#pragma once
// One colour per quant type, the same in every run and every view (Overview charts, Compare's
// table header, per-layer chart and histograms, the Recipe grid and audit): Q4_K is always the
// same orange whatever columns a comparison has or in which order. Every type of the type table
// has a hand-picked colour of its own; an id the table does not know gets one derived from its
// name, so it is stable too.

#include <QColor>
#include <QIcon>
#include <QPen>
#include <cstdint>

QColor quantTypeColour(std::uint32_t typeId);
// Black or white, whichever reads better on `background` (text on a type's colour).
QColor textColourOn(const QColor& background);
// A small filled square of the type's colour, for headers and combo boxes.
QIcon quantTypeSwatch(std::uint32_t typeId);
// A line of the type's colour; dashed for a simulated column, so a file and its simulation of
// the same type share the colour and stay apart.
QPen quantTypePen(std::uint32_t typeId, bool simulated, double width);
