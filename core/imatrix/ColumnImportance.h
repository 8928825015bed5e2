#pragma once
// Importance per input column for display: one expert's quant_weights, or the whole tensor's
// mean squared activation over every routed token (all experts pooled), and the columns that
// matter most.

#include "core/imatrix/ImportanceMatrix.h"

#include <cstddef>
#include <limits>
#include <vector>

namespace gguf {

constexpr std::size_t kAllExperts = std::numeric_limits<std::size_t>::max();

// expert < expertCount(): quantWeights(expert). kAllExperts: per column, the sums of every expert
// over the tokens of every expert (for a dense tensor the same as quantWeights(0) up to rounding).
std::vector<float> columnImportance(const ImportanceEntry& entry, std::size_t expert = kAllExperts);

struct ImportantColumn {
    std::size_t column = 0;
    float importance = 0.0f;
    double shareOfTotal = 0.0;  // importance / sum over columns
};

// The `count` most important columns, most important first (ties: lower column first).
std::vector<ImportantColumn> topColumns(const std::vector<float>& importance, std::size_t count);

}  // namespace gguf
