#pragma once
// A comparison and its results as JSON: one writer, so `compare --json` and the GUI's JSON
// export always agree.

#include "core/compare/ModelComparison.h"

#include <string>

namespace gguf {

// Appends the JSON object (reference, columns with totals, per-tensor results, problems) and a
// newline to `out`.
void writeComparisonJson(const ModelComparison& comparison, const ComparisonResults& results, std::string& out);

}  // namespace gguf
