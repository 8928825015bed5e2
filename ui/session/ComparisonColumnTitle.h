#pragma once
// What a comparison column is called on screen: the quant type it holds ("Q4_K", "Q2_K
// (simulated)"), not the file's name, which goes to the tooltip. A file column's type is the
// type of most of its compared weights (a Q4_K_M file is mostly Q4_K); two columns that would
// read the same get their column number.

#include "core/compare/ModelComparison.h"

#include <QString>
#include <cstdint>

// The type most of the column's compared weights have (by element count; the simulated type for
// a simulated column); 0 when nothing is comparable.
std::uint32_t comparisonColumnType(const gguf::ModelComparison& comparison, std::size_t column);
// "Q4_K", "Q4_K (simulated)", or "Q4_K [3]" when another column has the same title.
QString comparisonColumnTitle(const gguf::ModelComparison& comparison, std::size_t column);
// The file (or "the reference quantized to … in memory"), for tooltips.
QString comparisonColumnSource(const gguf::ModelComparison& comparison, std::size_t column);
