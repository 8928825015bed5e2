#pragma once
// The tables and JSON members `recipe` prints: the layers x roles grid and the mix summary.

#include "core/base/JsonWriter.h"
#include "core/recipe/MixSummary.h"
#include "core/recipe/RecipeGrid.h"

#include <string>

std::string bpwText(double bpw);  // "4.518"
std::string padded(const std::string& text, std::size_t width);
// Columns are padded; the ends of lines are not.
std::string withoutTrailingSpaces(const std::string& text);

std::string gridText(const gguf::RecipeGrid& grid);
void writeGridJson(gguf::JsonWriter& json, const gguf::RecipeGrid& grid);  // the value of "grid"
std::string mixText(const gguf::MixSummary& mix);
void writeMixJson(gguf::JsonWriter& json, const gguf::MixSummary& mix);  // the member "mix"
