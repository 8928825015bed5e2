#pragma once
// Text and JSON renderings of metadata values, shared by the CLI and the GUI.

#include "core/base/EscapedText.h"  // escapeForDisplay, for the strings shown
#include "core/base/JsonWriter.h"
#include "core/gguf/MetadataValue.h"

#include <string>

namespace gguf {

// One line for people: scalars as they are, strings quoted with invisible characters escaped,
// arrays as "[512 × str] first, second, …" showing at most `maxElements` elements.
std::string formatValue(const MetadataValue& value, std::size_t maxElements = 8);

// The whole value as JSON: numbers exact (u64/i64 as integers), strings escaped, arrays in full.
void writeValueJson(JsonWriter& json, const MetadataValue& value);

// Shortest decimal text that reads back as the same float or double.
std::string formatFloat(double value, bool singlePrecision);

}  // namespace gguf
