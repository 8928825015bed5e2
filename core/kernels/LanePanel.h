#pragma once
// The lane product (LaneProduct.h) over weights packed for the AVX-512 kernel: a 512-bit
// register holds the 8 lanes of two rows, and from a row-major matrix it took two 256-bit loads
// and an insert to fill one, the insert on the port the multiply-adds need. In the panel the 8
// rows of a group are interleaved by 8 columns, so each row pair's next 16 weights are one aligned
// 64-byte load and a group's weights are read as one stream:
//
//   panel[g * 8 * columns + (k / 8) * 64 + i * 8 + q] = w[(8 g + i) * columns + k + q]
//
// A last group of fewer than 8 rows repeats its last row (those outputs are computed, never
// stored). The sums are the lane order's, bit for bit, whichever layout the weights come in.

#include "core/base/Result.h"

#include <cstdint>
#include <vector>

namespace gguf {

struct TensorInfo;

inline constexpr std::int64_t kLanePanelGroupRows = 8;

// Floats a panel of `rows` x `columns` takes (whole groups).
inline std::int64_t lanePanelFloats(std::int64_t rows, std::int64_t columns)
{
    return (rows + kLanePanelGroupRows - 1) / kLanePanelGroupRows * kLanePanelGroupRows * columns;
}

// A panel's storage in `buffer`, 64-byte aligned (the kernel's loads are whole cache lines).
inline float* alignedLanePanel(std::vector<float>& buffer, std::int64_t floats)
{
    buffer.resize(static_cast<std::size_t>(floats) + 16);
    const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
    return buffer.data() + ((64 - address % 64) % 64) / sizeof(float);
}

// Packs `count` (1..8) row-major rows (row stride `columns`, a multiple of 8) into one group of the
// panel, `group` (8 * columns floats).
void packLanePanelGroup(const float* rows, std::int64_t count, std::int64_t columns, float* group);

// Packs `count` (1..8) row-major rows of f16 values (row stride `columns`, a multiple of 8) into
// one group of the panel as floats: the conversion and the packing in one pass over the group,
// with no f32 copy of the rows in between (F16 weights, the reference of every KLD, are
// converted for every pass). The floats are f16's exact values, as any dequantization gives.
void packLanePanelGroupF16(const std::uint16_t* rows, std::int64_t count, std::int64_t columns, float* group);

// Rows [firstRow, firstRow + count) (count 1..8) of a stored matrix, dequantized into one group
// of the panel, with dequantizeRows' checks (a remote range fetched, a file that shrank while
// read reported). Little-endian F16 goes straight in (packLanePanelGroupF16); other types are
// dequantized into `staging` first. On failure the group is left as it is.
Status packLanePanelGroupFrom(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t count, float* group,
                              std::vector<float>& staging);

// Packs `rows` row-major rows into `panel` (lanePanelFloats(rows, columns) floats).
void packLanePanel(const float* weights, std::int64_t rows, std::int64_t columns, float* panel);

// y[t * yStride + r] for the panel's rows r in [0, rows) against the `tokens` rows of x (row
// stride `columns`, a multiple of 8), in the lane order; `panel` 64-byte aligned
// (alignedLanePanel). `scratch` is reused between calls.
void laneProductPanel(const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows, float* y,
                      std::int64_t yStride, std::vector<float>& scratch);

// The same with a chosen kernel, for tests: 2 AVX-512, anything lower the portable loop over
// the panel. A kernel the CPU lacks falls back to the portable loop.
void laneProductPanelWith(int kernel, const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows,
                          float* y, std::int64_t yStride, std::vector<float>& scratch);

// Whether laneProductPanel runs the AVX-512 kernel here, which is when packing pays: elsewhere
// the row-major kernels (LaneProduct.h) are as fast without the copy.
bool lanePanelIsFast();

// Tokens from which the AVX-512 kernel packs row-major weights into a panel before multiplying:
// the copy costs about one pass over the weights, which a handful of tokens does not repay.
inline constexpr std::int64_t kLanePanelMinTokens = 6;

}  // namespace gguf
