#pragma once
// What a comparison column is called on screen, the same on every tab (table, charts, Output,
// Experts): a file by its file type, the llama-quantize preset it was made with ("Q4_K_M",
// "IQ2_XS": general.file_type, else the preset in the file name, as the recipe audit reads
// them), else by the type most of its compared weights have; a simulated column by its type
// ("Q4_K (simulated)"). The file's path goes to the tooltip. Two columns that would read the
// same are told apart by their file names ("Q4_K_M · model-a-Q4_K_M"), not by a number.

#include "core/compare/ModelComparison.h"

#include <QString>
#include <cstdint>
#include <vector>

// The type most of the column's compared weights have (by element count; the simulated type for
// a simulated column); 0 when nothing is comparable. What the column's colour follows.
std::uint32_t comparisonColumnType(const gguf::ModelComparison& comparison, std::size_t column);
// "Q4_K_M", "Q4_K (simulated)", or "Q4_K_M · model-b-Q4_K_M" when another column has the same name.
QString comparisonColumnTitle(const gguf::ModelComparison& comparison, std::size_t column);
// The file (or "the reference quantized to … in memory"), for tooltips.
QString comparisonColumnSource(const gguf::ModelComparison& comparison, std::size_t column);
// How many columns before `column` have the same colour type and kind (0 for the first): what
// tells two Q4_K_M files apart in a chart.
int comparisonColumnTypeRepeat(const gguf::ModelComparison& comparison, std::size_t column);
// What an exported chart compares, for its title: "model Tiny Llama: Q4_K_M, Q2_K (simulated)
// against the reference tiny-llama-F32.gguf" (the model's general.name when it has one).
QString comparisonSubject(const gguf::ModelComparison& comparison, const std::vector<std::size_t>& columns);
// The same for every column of the comparison.
QString comparisonSubject(const gguf::ModelComparison& comparison);
