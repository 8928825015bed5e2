#pragma once
// The error of one comparison cell (column value minus reference value) as a heatmap: the
// tensor seen as rowCount() rows of ne[0] elements, reduced to a grid of screen cells while the
// comparison reconstructs whole rows, so no tensor is ever in memory whole. Uses the weight
// heatmap's grid and cell mapping (HeatmapReducer), so zoom works the same way. Grid rows are
// independent: callers split them into bands across threads.

#include "core/analysis/HeatmapReducer.h"
#include "core/compare/ModelComparison.h"

#include <atomic>
#include <cstdint>
#include <span>

namespace gguf {

// The matrix the heatmap shows for a row of the comparison: reference rows x ne[0].
HeatmapRegion errorHeatmapExtent(const ModelComparison& comparison, std::size_t row);

// Fills grid rows [gridRowBegin, gridRowEnd) into `cells` (row-major, (end-begin) x grid.columns)
// with the aggregate of (other - reference) under each cell. Mean, Min and Max make a cell NaN
// when any error under it is NaN (damage stays visible); AbsMax ignores NaN. Fails for cells that
// are not computable and for a region outside the matrix. `cancelled` is polled per source row.
Status reduceErrorHeatmapRows(const ModelComparison& comparison, std::size_t row, std::size_t column, const HeatmapGrid& grid,
                              std::uint32_t gridRowBegin, std::uint32_t gridRowEnd, std::span<float> cells,
                              const std::atomic<bool>* cancelled = nullptr);

}  // namespace gguf
