#include "core/blocks/ScaleOverview.h"

#include "core/analysis/HeatmapReducer.h"

#include <algorithm>

namespace gguf {

namespace {
constexpr std::uint64_t kChunkScales = 1 << 18;

// The cell holding source index `index` when [0, count) is cut into `cells` cells at
// heatmapCellStart: the largest g with floor(count * g / cells) <= index.
std::size_t cellOf(std::uint64_t index, std::uint64_t count, std::uint32_t cells)
{
    __extension__ using Wide = unsigned __int128;
    return static_cast<std::size_t>((static_cast<Wide>(index + 1) * cells - 1) / count);
}

// Calls `visit(firstRow, scales)` for consecutive row chunks of the slice.
template <typename Visit>
Status forEachScaleChunk(const TensorSlice& slice, std::uint64_t scalesPerRow, const std::atomic<bool>* cancelled, Visit&& visit)
{
    const std::uint64_t rowsPerChunk = std::max<std::uint64_t>(1, kChunkScales / std::max<std::uint64_t>(1, scalesPerRow));
    BlockScales scales;
    for (std::uint64_t row = 0; row < slice.rowCount; row += rowsPerChunk) {
        if (cancelled && cancelled->load(std::memory_order_relaxed))
            return Error{"scale overview cancelled", Error::kNoOffset, {}};
        const std::uint64_t rows = std::min(rowsPerChunk, slice.rowCount - row);
        if (Status s = extractRowScales(*slice.tensor, slice.firstRow + row, slice.firstRow + row + rows, scales); !s)
            return s;
        visit(row, scales);
    }
    return Ok{};
}
}  // namespace

Result<ScaleOverview> computeScaleOverview(const TensorSlice& slice, std::uint32_t gridRows, std::uint32_t gridColumns,
                                           std::uint32_t bins, const std::atomic<bool>* cancelled)
{
    const TensorInfo& tensor = *slice.tensor;
    auto layout = blockScaleLayout(tensor.typeId);
    if (!layout)
        return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId) + ", which has no block scales",
                     Error::kNoOffset, {}};
    ScaleOverview overview;
    overview.layout = *layout;
    overview.subBlocksPerRow = slice.rowLength() / layout->elementsPerSubBlock;
    if (slice.rowCount == 0 || overview.subBlocksPerRow == 0)
        return overview;
    overview.gridRows = static_cast<std::uint32_t>(std::min<std::uint64_t>(gridRows, slice.rowCount));
    overview.gridColumns = static_cast<std::uint32_t>(std::min<std::uint64_t>(gridColumns, overview.subBlocksPerRow));
    std::vector<double> sums(static_cast<std::size_t>(overview.gridRows) * overview.gridColumns, 0.0);
    std::vector<std::uint64_t> counts(sums.size(), 0);
    std::vector<double> minSums(layout->subMins == layout->subScales && layout->subMins > 0 ? sums.size() : 0, 0.0);
    std::vector<std::uint32_t> cellOfColumn(static_cast<std::size_t>(overview.subBlocksPerRow));
    for (std::uint32_t c = 0; c < overview.gridColumns; ++c) {
        const std::uint64_t from = heatmapCellStart(0, overview.subBlocksPerRow, overview.gridColumns, c);
        const std::uint64_t to = heatmapCellStart(0, overview.subBlocksPerRow, overview.gridColumns, c + 1);
        std::fill(cellOfColumn.begin() + static_cast<std::ptrdiff_t>(from), cellOfColumn.begin() + static_cast<std::ptrdiff_t>(to), c);
    }

    // Pass 1: statistics (for the histogram ranges) and the position grid.
    StatisticsAccumulator scaleStats;
    StatisticsAccumulator minStats;
    const std::uint64_t perRow = overview.subBlocksPerRow;
    Status pass = forEachScaleChunk(slice, perRow, cancelled, [&](std::uint64_t firstRow, const BlockScales& scales) {
        scaleStats.add(scales.subScales);
        minStats.add(scales.subMins);
        const std::uint64_t rows = scales.subScales.size() / perRow;
        for (std::uint64_t r = 0; r < rows; ++r) {
            const std::size_t gridRow = cellOf(firstRow + r, slice.rowCount, overview.gridRows);
            const float* rowScales = scales.subScales.data() + r * perRow;
            const bool withMins = !minSums.empty() && scales.subMins.size() == scales.subScales.size();
            const float* rowMins = withMins ? scales.subMins.data() + r * perRow : nullptr;
            for (std::uint64_t k = 0; k < perRow; ++k) {
                const std::size_t cell = gridRow * overview.gridColumns + cellOfColumn[static_cast<std::size_t>(k)];
                sums[cell] += rowScales[k];
                if (rowMins)
                    minSums[cell] += rowMins[k];
                ++counts[cell];
            }
        }
    });
    if (!pass)
        return pass.error();
    overview.grid.resize(sums.size());
    for (std::size_t i = 0; i < sums.size(); ++i)
        overview.grid[i] = counts[i] ? static_cast<float>(sums[i] / static_cast<double>(counts[i])) : 0.0f;
    overview.minGrid.resize(minSums.size());
    for (std::size_t i = 0; i < minSums.size(); ++i)
        overview.minGrid[i] = counts[i] ? static_cast<float>(minSums[i] / static_cast<double>(counts[i])) : 0.0f;
    overview.scaleStatistics = scaleStats.result();
    overview.minStatistics = minStats.result();

    // Pass 2: histograms over the ranges found.
    auto rangeOf = [bins](const Statistics& s) -> std::optional<Histogram> {
        if (s.finiteCount == 0)
            return std::nullopt;
        return Histogram(s.min, s.max, bins);
    };
    overview.scaleHistogram = rangeOf(overview.scaleStatistics);
    overview.minHistogram = rangeOf(overview.minStatistics);
    pass = forEachScaleChunk(slice, perRow, cancelled, [&](std::uint64_t, const BlockScales& scales) {
        if (overview.scaleHistogram)
            overview.scaleHistogram->add(scales.subScales);
        if (overview.minHistogram)
            overview.minHistogram->add(scales.subMins);
    });
    if (!pass)
        return pass.error();
    return overview;
}

}  // namespace gguf
