#pragma once
// Distributions of one comparison cell's error for plots: a histogram of the signed error
// (other - reference) over bins the caller shares between columns, and the RMS error of each
// quantization block next to that block's scale. Both stream element ranges from
// ModelComparison::reconstruct and are thread-safe per range.

#include "core/compare/ModelComparison.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gguf {

// Adds the signed errors of `range` to `counts`, bins of equal width over [-limit, limit];
// errors beyond the limit land in the outermost bins, non-finite errors are left out.
Status addSignedErrors(const ModelComparison& comparison, std::size_t row, std::size_t column, ElementRange range, double limit,
                       std::span<std::uint64_t> counts);

struct BlockErrorPoints {
    std::vector<float> scales;    // one per block: its first super scale (d), else its largest |sub-scale|
    std::vector<float> rmsError;  // one per block: sqrt(mean((other - reference)^2)) over its elements
    std::uint32_t blockSize = 0;
    std::uint32_t typeId = 0;     // the type whose scales these are
};

// Per-block scale and RMS error for the blocks of `range` (aligned to the column's blocks). For a
// file column the scales are read from the stored tensor; for a simulated column the reference
// range is quantized in memory exactly as reconstruct() does and the scales read from those bytes.
// Fails for columns of plain types (f32, f16, ...), which have no block scales.
Status blockErrors(const ModelComparison& comparison, std::size_t row, std::size_t column, ElementRange range, BlockErrorPoints& out);

}  // namespace gguf
