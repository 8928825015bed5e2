#pragma once
// Reduces a region of a 2-D slice (rows × ne[0] columns) to a grid of screen cells while
// dequantizing, so a heatmap of a billion-element tensor needs one row of floats at a time,
// never the whole matrix. Grid rows are independent: callers split them across threads.

#include "core/base/Result.h"
#include "core/gguf/TensorSlice.h"

#include <atomic>
#include <cstdint>
#include <span>

namespace gguf {

enum class CellAggregate { Mean, AbsMax, Min, Max };

struct HeatmapRegion {
    std::uint64_t rowBegin = 0;
    std::uint64_t rowEnd = 0;     // exclusive, rows of the slice
    std::uint64_t columnBegin = 0;
    std::uint64_t columnEnd = 0;  // exclusive, elements of a row
};

struct HeatmapGrid {
    HeatmapRegion region;
    std::uint32_t rows = 0;     // cells; at most the region's rows
    std::uint32_t columns = 0;  // cells; at most the region's columns
    CellAggregate aggregate = CellAggregate::Mean;
};

// A grid of at most `maxRows` × `maxColumns` cells over `region` (one cell per weight when the
// region is smaller than that).
HeatmapGrid fitHeatmapGrid(const HeatmapRegion& region, std::uint32_t maxRows, std::uint32_t maxColumns, CellAggregate aggregate);

// Fills grid rows [gridRowBegin, gridRowEnd) into `cells` (row-major, (end-begin) × grid.columns
// floats). NaN in a cell's inputs makes the cell NaN for Mean, Min and Max, so damage stays
// visible; AbsMax ignores NaN but keeps infinities. `cancelled` is polled between source rows.
Status reduceHeatmapRows(const TensorSlice& slice, const HeatmapGrid& grid, std::uint32_t gridRowBegin, std::uint32_t gridRowEnd,
                         std::span<float> cells, const std::atomic<bool>* cancelled = nullptr);

// First source row of grid row `gridRow` (the last grid row ends at region.rowEnd); the same
// mapping serves columns.
std::uint64_t heatmapCellStart(std::uint64_t begin, std::uint64_t end, std::uint32_t cells, std::uint32_t index);

}  // namespace gguf
