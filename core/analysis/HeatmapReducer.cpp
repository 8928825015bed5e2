#include "core/analysis/HeatmapReducer.h"

#include "core/gguf/Dequantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

// Which visible columns feed which cell: cell c covers [start[c], start[c + 1]). Cells are an
// even division of the columns, so widths differ by at most one.
struct CellColumns {
    std::vector<std::uint32_t> start;
    std::uint32_t minWidth = 0;
    std::uint32_t maxWidth = 0;

    std::size_t cells() const { return start.size() - 1; }
};

CellColumns cellColumns(const HeatmapRegion& region, std::uint32_t cells)
{
    CellColumns columns;
    columns.start.resize(std::size_t{cells} + 1);
    for (std::uint32_t c = 0; c <= cells; ++c)
        columns.start[c] = static_cast<std::uint32_t>(heatmapCellStart(region.columnBegin, region.columnEnd, cells, c) - region.columnBegin);
    columns.minWidth = std::numeric_limits<std::uint32_t>::max();
    for (std::uint32_t c = 0; c < cells; ++c) {
        const std::uint32_t width = columns.start[c + 1] - columns.start[c];
        columns.minWidth = std::min(columns.minWidth, width);
        columns.maxWidth = std::max(columns.maxWidth, width);
    }
    return columns;
}

// Written on the bits (NaN: magnitude above infinity's) so that it vectorizes with SSE2.
bool anyNan(const float* values, std::size_t count)
{
    std::int32_t nan = 0;
    for (std::size_t k = 0; k < count; ++k) {
        std::int32_t bits;
        std::memcpy(&bits, values + k, sizeof bits);
        nan |= (bits & 0x7FFFFFFF) > 0x7F800000;
    }
    return nan != 0;
}

// One grid row's worth of cells for one aggregate. Values reach a cell row by row, column by
// column; the results equal a plain per-value accumulation: a mean is the double sum in that
// order divided by the value count; a NaN input makes Mean/Min/Max NaN (the canonical quiet
// NaN); AbsMax skips NaN and is NaN only when every input was.
//
// Speed: every cell's loop runs minWidth steps plus, where cells differ in width, steps up to
// maxWidth that add a neutral value (+0.0 to a sum that is never -0.0; +inf to a min, -inf to a max, 0 to an
// absolute max) for the narrower cells, so the loop branch is predictable. NaN is looked for
// once per row and handled cell by cell only in the rare rows that have one.
class CellBand {
public:
    CellBand(CellAggregate aggregate, const CellColumns& columns)
        : m_aggregate(aggregate), m_columns(columns), m_sum(columns.cells()), m_extreme(columns.cells()), m_flag(columns.cells())
    {
    }

    void reset()
    {
        std::fill(m_sum.begin(), m_sum.end(), 0.0);
        std::fill(m_extreme.begin(), m_extreme.end(), neutral());
        std::fill(m_flag.begin(), m_flag.end(), std::uint8_t{0});
    }

    void addRow(const float* values)
    {
        switch (m_aggregate) {
        case CellAggregate::Mean: addSums(values); break;
        case CellAggregate::AbsMax: addExtremes(values, [](float extreme, float v) { return extreme < std::fabs(v) ? std::fabs(v) : extreme; }); break;
        case CellAggregate::Min: addExtremes(values, [](float extreme, float v) { return v < extreme ? v : extreme; }); break;
        case CellAggregate::Max: addExtremes(values, [](float extreme, float v) { return extreme < v ? v : extreme; }); break;
        }
        // Flags: for AbsMax "some value was a number", for the others "some value was NaN".
        const bool absMax = m_aggregate == CellAggregate::AbsMax;
        if (!anyNan(values, m_columns.start.back())) {
            if (absMax)
                std::fill(m_flag.begin(), m_flag.end(), std::uint8_t{1});
            return;
        }
        for (std::size_t c = 0; c < m_flag.size(); ++c) {
            for (std::uint32_t k = m_columns.start[c]; k < m_columns.start[c + 1]; ++k)
                m_flag[c] |= absMax ? values[k] == values[k] : values[k] != values[k];
        }
    }

    float result(std::size_t cell, std::uint64_t valueCount) const
    {
        constexpr float nan = std::numeric_limits<float>::quiet_NaN();
        if (valueCount == 0)  // a grid finer than its region has empty cells
            return nan;
        switch (m_aggregate) {
        case CellAggregate::Mean: return m_flag[cell] ? nan : static_cast<float>(m_sum[cell] / static_cast<double>(valueCount));
        case CellAggregate::AbsMax: return m_flag[cell] ? m_extreme[cell] : nan;
        case CellAggregate::Min:
        case CellAggregate::Max: return m_flag[cell] ? nan : m_extreme[cell];
        }
        return nan;
    }

private:
    float neutral() const
    {
        constexpr float inf = std::numeric_limits<float>::infinity();
        return m_aggregate == CellAggregate::Min ? inf : m_aggregate == CellAggregate::Max ? -inf : 0.0f;
    }

    // A NaN value leaves the sum NaN, which result() never shows (the flag wins).
    void addSums(const float* values)
    {
        const std::uint32_t width = m_columns.minWidth;
        for (std::size_t c = 0; c < m_sum.size(); ++c) {
            const std::uint32_t begin = m_columns.start[c];
            double sum = m_sum[c];
            const std::uint32_t end = m_columns.start[c + 1];
            for (std::uint32_t k = begin; k < begin + width; ++k)
                sum += values[k];
            for (std::uint32_t k = begin + width; k < begin + m_columns.maxWidth; ++k)
                sum += k < end ? double(values[k]) : 0.0;
            m_sum[c] = sum;
        }
    }

    // `keep(extreme, v)` is the new extreme; it keeps the first of equal values (so a zero
    // extreme has the first zero's sign) and ignores NaN, as std::min / std::max do.
    template <class Keep>
    void addExtremes(const float* values, Keep keep)
    {
        const std::uint32_t width = m_columns.minWidth;
        const float pad = neutral();
        for (std::size_t c = 0; c < m_extreme.size(); ++c) {
            const std::uint32_t begin = m_columns.start[c];
            float extreme = m_extreme[c];
            const std::uint32_t end = m_columns.start[c + 1];
            for (std::uint32_t k = begin; k < begin + width; ++k)
                extreme = keep(extreme, values[k]);
            for (std::uint32_t k = begin + width; k < begin + m_columns.maxWidth; ++k)
                extreme = keep(extreme, k < end ? values[k] : pad);
            m_extreme[c] = extreme;
        }
    }

    CellAggregate m_aggregate;
    const CellColumns& m_columns;
    std::vector<double> m_sum;
    std::vector<float> m_extreme;
    std::vector<std::uint8_t> m_flag;
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
        || region.columnEnd > slice.rowLength() || grid.rows == 0 || grid.columns == 0 || gridRowBegin > gridRowEnd || gridRowEnd > grid.rows
        || cells.size() != static_cast<std::size_t>(gridRowEnd - gridRowBegin) * grid.columns)
        return Error{"heatmap request does not fit tensor '" + std::string(tensor.name) + "'", Error::kNoOffset, {}};

    // Only the blocks that cover the visible columns are dequantized, one source row at a time.
    const std::uint64_t blockSize = tensor.traits->blockSize;
    const std::uint64_t firstColumn = region.columnBegin / blockSize * blockSize;
    const std::uint64_t lastColumn = std::min<std::uint64_t>((region.columnEnd + blockSize - 1) / blockSize * blockSize, slice.rowLength());
    std::vector<float> row(static_cast<std::size_t>(lastColumn - firstColumn));
    const CellColumns columns = cellColumns(region, grid.columns);
    CellBand band(grid.aggregate, columns);

    const std::uint64_t rowLength = slice.rowLength();
    const float* visible = row.data() + (region.columnBegin - firstColumn);
    for (std::uint32_t g = gridRowBegin; g < gridRowEnd; ++g) {
        band.reset();
        const std::uint64_t from = heatmapCellStart(region.rowBegin, region.rowEnd, grid.rows, g);
        const std::uint64_t to = heatmapCellStart(region.rowBegin, region.rowEnd, grid.rows, g + 1);
        for (std::uint64_t r = from; r < to; ++r) {
            if (cancelled && cancelled->load(std::memory_order_relaxed))
                return Error{"heatmap cancelled", Error::kNoOffset, {}};
            const std::uint64_t base = (slice.firstRow + r) * rowLength;
            if (Status s = dequantizeElements(tensor, base + firstColumn, base + lastColumn, row); !s)
                return s;
            band.addRow(visible);
        }
        float* out = cells.data() + static_cast<std::size_t>(g - gridRowBegin) * grid.columns;
        for (std::uint32_t c = 0; c < grid.columns; ++c)
            out[c] = band.result(c, (to - from) * (columns.start[c + 1] - columns.start[c]));
    }
    return Ok{};
}

}  // namespace gguf
