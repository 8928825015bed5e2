#include "core/compare/ErrorHeatmap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gguf {

HeatmapRegion errorHeatmapExtent(const ModelComparison& comparison, std::size_t row)
{
    const TensorInfo& reference = *comparison.rows()[row].reference;
    return HeatmapRegion{0, reference.rowCount(), 0, static_cast<std::uint64_t>(std::max<std::int64_t>(reference.ne[0], 0))};
}

namespace {

// Running aggregate of one screen cell.
struct CellState {
    double sum = 0.0;
    std::uint64_t count = 0;
    float extreme = std::numeric_limits<float>::quiet_NaN();
    bool sawNaN = false;

    void add(float error, CellAggregate aggregate)
    {
        ++count;
        if (std::isnan(error)) {
            sawNaN = true;
            return;
        }
        switch (aggregate) {
        case CellAggregate::Mean: sum += error; break;
        case CellAggregate::AbsMax:
            if (std::isnan(extreme) || std::fabs(error) > std::fabs(extreme))
                extreme = error;
            break;
        case CellAggregate::Min:
            if (std::isnan(extreme) || error < extreme)
                extreme = error;
            break;
        case CellAggregate::Max:
            if (std::isnan(extreme) || error > extreme)
                extreme = error;
            break;
        }
    }

    float value(CellAggregate aggregate) const
    {
        constexpr float nan = std::numeric_limits<float>::quiet_NaN();
        if (aggregate == CellAggregate::AbsMax)
            return extreme;  // NaN only when every error under the cell was NaN
        if (sawNaN || count == 0)
            return nan;
        return aggregate == CellAggregate::Mean ? static_cast<float>(sum / static_cast<double>(count)) : extreme;
    }
};

}  // namespace

Status reduceErrorHeatmapRows(const ModelComparison& comparison, std::size_t row, std::size_t column, const HeatmapGrid& grid,
                              std::uint32_t gridRowBegin, std::uint32_t gridRowEnd, std::span<float> cells,
                              const std::atomic<bool>* cancelled)
{
    const HeatmapRegion extent = errorHeatmapExtent(comparison, row);
    const HeatmapRegion& region = grid.region;
    if (region.rowBegin >= region.rowEnd || region.rowEnd > extent.rowEnd || region.columnBegin >= region.columnEnd
        || region.columnEnd > extent.columnEnd || grid.rows == 0 || grid.columns == 0 || gridRowBegin > gridRowEnd
        || gridRowEnd > grid.rows)
        return Error{"reduceErrorHeatmapRows: region or grid rows outside the tensor", Error::kNoOffset, {}};
    if (cells.size() != static_cast<std::size_t>(gridRowEnd - gridRowBegin) * grid.columns)
        return Error{"reduceErrorHeatmapRows: cells must hold the band's grid rows", Error::kNoOffset, {}};

    const std::uint64_t rowLength = extent.columnEnd;
    std::vector<float> reference(static_cast<std::size_t>(rowLength));
    std::vector<float> other(reference.size());
    std::vector<std::uint32_t> cellOfColumn(static_cast<std::size_t>(region.columnEnd - region.columnBegin));
    for (std::uint32_t c = 0; c < grid.columns; ++c) {
        const std::uint64_t first = heatmapCellStart(region.columnBegin, region.columnEnd, grid.columns, c);
        const std::uint64_t last = heatmapCellStart(region.columnBegin, region.columnEnd, grid.columns, c + 1);
        std::fill(cellOfColumn.begin() + static_cast<std::ptrdiff_t>(first - region.columnBegin),
                  cellOfColumn.begin() + static_cast<std::ptrdiff_t>(last - region.columnBegin), c);
    }

    std::vector<CellState> states(grid.columns);
    for (std::uint32_t g = gridRowBegin; g < gridRowEnd; ++g) {
        std::fill(states.begin(), states.end(), CellState{});
        const std::uint64_t first = heatmapCellStart(region.rowBegin, region.rowEnd, grid.rows, g);
        const std::uint64_t last = heatmapCellStart(region.rowBegin, region.rowEnd, grid.rows, g + 1);
        for (std::uint64_t source = first; source < last; ++source) {
            if (cancelled && cancelled->load(std::memory_order_relaxed))
                return Error{"cancelled", Error::kNoOffset, {}};
            // Whole rows are always aligned to the blocks of every type involved.
            const ElementRange range{source * rowLength, (source + 1) * rowLength};
            if (Status s = comparison.reconstruct(row, column, range, reference, other); !s)
                return s;
            for (std::uint64_t e = region.columnBegin; e < region.columnEnd; ++e)
                states[cellOfColumn[e - region.columnBegin]].add(other[e] - reference[e], grid.aggregate);
        }
        float* out = cells.data() + static_cast<std::size_t>(g - gridRowBegin) * grid.columns;
        for (std::uint32_t c = 0; c < grid.columns; ++c)
            out[c] = states[c].value(grid.aggregate);
    }
    return Ok{};
}

}  // namespace gguf
