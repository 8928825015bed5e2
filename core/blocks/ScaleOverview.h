#pragma once
// The per-block scales of a whole tensor or expert, summarized in bounded memory: histograms of
// the effective sub-block scales and mins, and grids of scales (and mins) by position (row × sub-block
// column) reduced to at most gridRows × gridColumns cells by their mean.

#include "core/blocks/BlockScales.h"
#include "core/analysis/Statistics.h"
#include "core/gguf/TensorSlice.h"

#include <atomic>
#include <optional>

namespace gguf {

struct ScaleOverview {
    BlockScaleLayout layout;
    std::uint64_t subBlocksPerRow = 0;  // columns of the full scale matrix
    std::uint32_t gridRows = 0;
    std::uint32_t gridColumns = 0;
    std::vector<float> grid;  // mean effective scale per cell, row-major
    std::vector<float> minGrid;  // mean effective min per cell, same cells; empty when the type has no mins
    Statistics scaleStatistics;
    std::optional<Histogram> scaleHistogram;
    Statistics minStatistics;  // count 0 when the type has no mins
    std::optional<Histogram> minHistogram;
};

Result<ScaleOverview> computeScaleOverview(const TensorSlice& slice, std::uint32_t gridRows, std::uint32_t gridColumns,
                                           std::uint32_t bins, const std::atomic<bool>* cancelled = nullptr);

}  // namespace gguf
