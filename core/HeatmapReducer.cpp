#include "HeatmapReducer.h"

#include "Dequantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gguf {

std::uint64_t heatmapCellStart(std::uint64_t begin, std::uint64_t end, std::uint32_t cells, std::uint32_t index)
{
    // 128-bit product: a billion rows times thousands of cells overflows 64 bits only in theory,
    // but the mapping must be exact for any input.
    __extension__ using Wide = unsigned __int128;
    return begin + static_cast<std::uint64_t>(static_cast<Wide>(end - begin) * index / cells);
}

HeatmapGrid fitHeatmapGrid(const HeatmapRegion& region, std::uint32_t maxRows, std::uint32_t maxColumns, CellAggregate aggregate)
{
    HeatmapGrid grid;
    grid.region = region;
    grid.rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(region.rowEnd - region.rowBegin, maxRows));
    grid.columns = static_cast<std::uint32_t>(std::min<std::uint64_t>(region.columnEnd - region.columnBegin, maxColumns));
    grid.aggregate = aggregate;
    return grid;
}

namespace {
struct CellAccumulator {
    double sum = 0.0;
    std::uint64_t count = 0;
    float low = std::numeric_limits<float>::infinity();
    float high = -std::numeric_limits<float>::infinity();
    float absHigh = 0.0f;
    bool sawNan = false;

    void add(float v)
    {
        if (std::isnan(v)) {
            sawNan = true;
            return;
        }
        sum += v;
        ++count;
        low = std::min(low, v);
        high = std::max(high, v);
        absHigh = std::max(absHigh, std::fabs(v));
    }

    float result(CellAggregate aggregate) const
    {
        constexpr float nan = std::numeric_limits<float>::quiet_NaN();
        switch (aggregate) {
        case CellAggregate::Mean: return sawNan || count == 0 ? nan : static_cast<float>(sum / static_cast<double>(count));
        case CellAggregate::AbsMax: return count == 0 ? nan : absHigh;
        case CellAggregate::Min: return sawNan || count == 0 ? nan : low;
        case CellAggregate::Max: return sawNan || count == 0 ? nan : high;
        }
        return nan;
    }
};
}  // namespace

Status reduceHeatmapRows(const TensorSlice& slice, const HeatmapGrid& grid, std::uint32_t gridRowBegin, std::uint32_t gridRowEnd,
                         std::span<float> cells, const std::atomic<bool>* cancelled)
{
    const HeatmapRegion& region = grid.region;
    const TensorInfo& tensor = *slice.tensor;
    if (!tensor.traits || !tensor.traits->dequantize)
        return dequantizeElements(tensor, 0, 0, {});  // the error names the type
    if (region.rowBegin >= region.rowEnd || region.rowEnd > slice.rowCount || region.columnBegin >= region.columnEnd
        || region.columnEnd > slice.rowLength() || grid.rows == 0 || grid.columns == 0 || gridRowBegin > gridRowEnd
        || gridRowEnd > grid.rows || cells.size() != static_cast<std::size_t>(gridRowEnd - gridRowBegin) * grid.columns)
        return Error{"heatmap request does not fit tensor '" + std::string(tensor.name) + "'", Error::kNoOffset, {}};

    // Only the blocks that cover the visible columns are dequantized.
    const std::uint64_t blockSize = tensor.traits->blockSize;
    const std::uint64_t firstColumn = region.columnBegin / blockSize * blockSize;
    const std::uint64_t lastColumn = std::min<std::uint64_t>((region.columnEnd + blockSize - 1) / blockSize * blockSize, slice.rowLength());
    std::vector<float> row(static_cast<std::size_t>(lastColumn - firstColumn));
    std::vector<std::uint32_t> cellOfColumn(static_cast<std::size_t>(region.columnEnd - region.columnBegin));
    for (std::uint32_t c = 0; c < grid.columns; ++c) {
        const std::uint64_t from = heatmapCellStart(region.columnBegin, region.columnEnd, grid.columns, c) - region.columnBegin;
        const std::uint64_t to = heatmapCellStart(region.columnBegin, region.columnEnd, grid.columns, c + 1) - region.columnBegin;
        std::fill(cellOfColumn.begin() + static_cast<std::ptrdiff_t>(from), cellOfColumn.begin() + static_cast<std::ptrdiff_t>(to), c);
    }
    std::vector<CellAccumulator> band(grid.columns);

    const std::uint64_t rowLength = slice.rowLength();
    for (std::uint32_t g = gridRowBegin; g < gridRowEnd; ++g) {
        std::fill(band.begin(), band.end(), CellAccumulator{});
        const std::uint64_t from = heatmapCellStart(region.rowBegin, region.rowEnd, grid.rows, g);
        const std::uint64_t to = heatmapCellStart(region.rowBegin, region.rowEnd, grid.rows, g + 1);
        for (std::uint64_t r = from; r < to; ++r) {
            if (cancelled && cancelled->load(std::memory_order_relaxed))
                return Error{"heatmap cancelled", Error::kNoOffset, {}};
            const std::uint64_t base = (slice.firstRow + r) * rowLength;
            if (Status s = dequantizeElements(tensor, base + firstColumn, base + lastColumn, row); !s)
                return s;
            const float* visible = row.data() + (region.columnBegin - firstColumn);
            for (std::size_t k = 0; k < cellOfColumn.size(); ++k)
                band[cellOfColumn[k]].add(visible[k]);
        }
        float* out = cells.data() + static_cast<std::size_t>(g - gridRowBegin) * grid.columns;
        for (std::uint32_t c = 0; c < grid.columns; ++c)
            out[c] = band[c].result(grid.aggregate);
    }
    return Ok{};
}

}  // namespace gguf
