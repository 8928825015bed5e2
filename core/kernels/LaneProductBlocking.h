#pragma once
// The blocking shared by the lane-product kernels (LaneProduct.h and LanePanel.h), included by
// each instruction set's file with its own Tile: Tile::kRows x Tile::kTokens outputs at a time,
// their 8 lanes in registers over a slice of the columns, carried between slices in `lanes`;
// after the last slice the tile sums them into y. The Tile also says where its lanes and
// weights lie (RowMajorLanes, or a packed panel's layout).

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gguf::lanes {

// Columns per slice: the slice of the activations (tokens x slice floats) within about 256 KB,
// so it stays in L2 while the row range streams past it.
inline std::int64_t sliceColumns(std::int64_t tokens, std::int64_t columns)
{
    std::int64_t slice = (256 * 1024 / 4) / std::max<std::int64_t>(tokens, 1);
    slice = std::max<std::int64_t>(64, slice / 8 * 8);
    return std::min(slice, columns);
}

// The 8 lanes of one output summed in ggml's order.
inline float sumLanes(const float* l)
{
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

// Tokens per block: a block's activations are what every row of the range passes over, slice
// by slice; beyond about 160 tokens the slice would shrink below 400 columns and the lanes
// carried between slices ([rows, tokens, 8]) outgrow L2, so a long sequence (a KLD chunk of 512)
// ran at two thirds of a short one's rate per token. Longer sequences are cut into equal blocks
// of at most 160 tokens (a multiple of the tile's), shorter ones stay whole. Each output's sum
// runs over the columns in the same order whichever block holds its token, so the blocking does
// not change a bit.
template <class Tile>
std::int64_t tokenBlock(std::int64_t tokens)
{
    constexpr std::int64_t kMaxBlock = 160;
    const std::int64_t blocks = (tokens + kMaxBlock - 1) / kMaxBlock;
    const std::int64_t even = (tokens + blocks - 1) / blocks;
    return (even + Tile::kTokens - 1) / Tile::kTokens * Tile::kTokens;
}

// Where a tile over row-major weights keeps its carried lanes and finds its weights: one entry of
// 8 floats per row and token ([rows, tokens, 8] of the row range), and row r from column k0 at
// w + r * columns + k0. A tile whose registers hold two rows' lanes may carry them as one entry
// of 16 floats per row pair (kRowsPerEntry 2, kTokenLanes 16).
struct RowMajorLanes {
    static constexpr std::int64_t kRowsPerEntry = 1;
    static constexpr std::int64_t kTokenLanes = 8;
    static const float* weightsAt(const float* w, std::int64_t r, std::int64_t k0, std::int64_t columns) { return w + r * columns + k0; }
};

template <class Tile>
void blockedLaneProductOfBlock(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                               std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& lanes)
{
    const std::int64_t rows = rowEnd - rowBegin;
    const std::int64_t entryStride = tokens * Tile::kTokenLanes;
    const std::int64_t slice = sliceColumns(tokens, columns);
    if (slice < columns)
        lanes.resize(static_cast<std::size_t>((rows + Tile::kRowsPerEntry - 1) / Tile::kRowsPerEntry * entryStride));
    for (std::int64_t k0 = 0; k0 < columns; k0 += slice) {
        const std::int64_t kn = std::min(slice, columns - k0);
        for (std::int64_t r = rowBegin; r < rowEnd; r += Tile::kRows) {
            const int nr = static_cast<int>(std::min<std::int64_t>(Tile::kRows, rowEnd - r));
            for (std::int64_t t = 0; t < tokens; t += Tile::kTokens) {
                const int nt = static_cast<int>(std::min<std::int64_t>(Tile::kTokens, tokens - t));
                // One slice carries no lanes, and an offset on an empty vector's null data() is undefined.
                float* carried = lanes.empty() ? nullptr
                                               : lanes.data() + (r - rowBegin) / Tile::kRowsPerEntry * entryStride + t * Tile::kTokenLanes;
                Tile::run(nr, nt, x + t * columns + k0, columns, Tile::weightsAt(weights, r, k0, columns), columns, kn, carried, entryStride,
                          k0 == 0, k0 + kn == columns ? y + t * yStride + r : nullptr, yStride);
            }
        }
    }
}

template <class Tile>
void blockedLaneProduct(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                        std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& lanes)
{
    if (rowEnd <= rowBegin || tokens <= 0)
        return;
    const std::int64_t block = tokenBlock<Tile>(tokens);
    for (std::int64_t t0 = 0; t0 < tokens; t0 += block)
        blockedLaneProductOfBlock<Tile>(x + t0 * columns, std::min(block, tokens - t0), weights, columns, rowBegin, rowEnd, y + t0 * yStride,
                                        yStride, lanes);
}

}  // namespace gguf::lanes
