#pragma once
// The lane product (LaneProduct.h) of a few tokens straight from a tensor's stored f16 rows. With
// fewer tokens than kLanePanelMinTokens a product reads each weight only once or twice, so it
// runs at the speed memory delivers the weights: dequantizing them into an f32 tile first (as
// other types are) added a write and a read of twice their bytes, and held single-token products
// (the last position's output matrix, an MoE layer's experts for one token) to half of
// llama.cpp's rate. The f16 values are widened exactly, so the sums are the lane order's bits.

#include "core/base/Result.h"

#include <cstdint>

namespace gguf {

struct TensorInfo;

// The stored halves of rows [firstRow, firstRow + rows) of `tensor`, or null unless it is a
// little-endian F16 tensor with those rows, aligned as uint16_t (a file may declare an odd
// alignment). Remote data is not fetched yet: read them with readTensorBytes (TensorBytesRead.h).
const std::uint16_t* storedHalfRows(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t rows);

// Whether rows [firstRow, firstRow + rows) of `tensor` can be multiplied here: AVX-512, stored
// halves (storedHalfRows), rows of a multiple of 8 values.
bool halfRowProductApplies(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t rows);

// y[t * yStride + r] for those rows r (from 0) against the `tokens` (1 to kLanePanelMinTokens - 1,
// LanePanel.h) rows of x (row stride ne[0]), with dequantizeRows' checks: a remote range fetched,
// a file that shrank while read reported.
Status laneProductHalfRows(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t rows, const float* x, std::int64_t tokens,
                           float* y, std::int64_t yStride);

}  // namespace gguf
