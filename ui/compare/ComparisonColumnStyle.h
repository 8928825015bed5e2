#pragma once
// The one colour of a comparison column on every tab (table header, per-layer chart, error
// histograms, Output drift and KLD bars, the Experts tab's bars): its type's colour
// (QuantTypeColour), so a Q4_K_M file is Q4_K's orange wherever it shows. A simulated column
// shares its type's colour but is drawn dashed (lines) or hatched (bars); a second file of the
// same type gets a darker shade, a third a lighter one, so two files never look the same.

#include "core/compare/ModelComparison.h"

#include <QBrush>
#include <QColor>
#include <QIcon>
#include <QPen>

QColor comparisonColumnColour(const gguf::ModelComparison& comparison, std::size_t column);
QPen comparisonColumnPen(const gguf::ModelComparison& comparison, std::size_t column, double width);
QBrush comparisonColumnBrush(const gguf::ModelComparison& comparison, std::size_t column);
// A small square of the column's colour, for headers and combo boxes.
QIcon comparisonColumnSwatch(const gguf::ModelComparison& comparison, std::size_t column);
