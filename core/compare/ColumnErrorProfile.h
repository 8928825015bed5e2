#pragma once
// For one tensor of a comparison: the error per input column next to the importance per column,
// so a person sees whether the error landed on the columns the calibration says matter.
// Column j gathers every element with index j along ne[0] (all rows, and all experts unless one
// is chosen); its weighted error is w_j (per expert) times each squared error.

#include "core/compare/ModelComparison.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

namespace gguf {

struct ColumnErrorProfile {
    std::size_t row = 0;
    std::size_t column = 0;               // the comparison column
    std::optional<std::size_t> expert;    // nullopt: every expert
    std::vector<double> squaredError;     // per input column: sum of (other - reference)^2
    std::vector<double> weightedError;    // per input column: sum of w (other - reference)^2; empty without importance
    std::vector<float> importance;        // per input column (the expert's weights, or all experts pooled); empty without
    std::uint64_t valuesPerColumn = 0;    // finite pairs per column when none is left out
    std::uint64_t nonFinite = 0;          // pairs left out
};

// Reads the cell's ranges one after the other on the calling thread. `cancelled`, when given,
// is polled before each range: once it is set the call stops with an error saying so.
Result<ColumnErrorProfile> computeColumnErrorProfile(const ModelComparison& comparison, std::size_t row, std::size_t column,
                                                     std::optional<std::size_t> expert = std::nullopt,
                                                     const std::atomic<bool>* cancelled = nullptr);

}  // namespace gguf
