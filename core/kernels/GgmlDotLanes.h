#pragma once
// What the kernels of GgmlDot.h share: ggml's horizontal sum, and the integer lanes of its AVX2
// kernels. Those multiply 32 bytes of weights by 32 bytes of activations (vpmaddubsw) and add
// the products in fours (vpmaddwd): 32-bit lane l then holds values 4l .. 4l + 3 of each 32.

#include "core/kernels/LaneSums.h"
#include "core/kernels/QuantizedDot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gguf::ggmldot {

using qdot::sumLanes8;

// The lane of value v of a 32-byte register.
constexpr int laneOf(int v)
{
    return (v % 32) / 4;
}

// lanes[l] = the sum over values v of `count` (a multiple of 32) in lane l of
// scale16[v / 16] * w[v] * a[v]: the integer sums of a super-block whose weights carry a scale
// per 16 values (none: all 1).
inline void addLaneProductsScalar(const std::int8_t* w, const std::int8_t* a, int count, const int* scale16, std::int32_t* lanes)
{
    for (int v = 0; v < count; ++v)
        lanes[laneOf(v)] += (scale16 ? scale16[v / 16] : 1) * w[v] * a[v];
}

// With AVX2 the same sums come from ggml's instructions (LaneProductsAvx2.cpp): the kernels
// spend most of their time here.
void addLaneProductsAvx2(const std::int8_t* w, const std::int8_t* a, int count, const int* scale16, std::int32_t* lanes);
bool laneProductsHaveAvx2();

inline void addLaneProducts(const std::int8_t* w, const std::int8_t* a, int count, const int* scale16, std::int32_t* lanes)
{
#if GGUFX_X86_KERNELS
    if (count % 32 == 0 && laneProductsHaveAvx2()) {
        addLaneProductsAvx2(w, a, count, scale16, lanes);
        return;
    }
#endif
    addLaneProductsScalar(w, a, count, scale16, lanes);
}

// A super-block's 256 weights w (value order) times their scale per 16 values as int16, each
// 32 in Q8Activations::wide's order: what the vector bodies read (qdot::PreparedRow::weights).
inline void storeWideScaled(const std::int8_t* w, const int* scale16, std::int16_t* out)
{
    for (int g = 0; g < 256; g += 32)
        for (int p = 0; p < 32; ++p) {
            const int v = g + wideOrder(p);
            out[g + p] = static_cast<std::int16_t>(w[v] * scale16[v / 16]);
        }
}

// lanes[l] = fma(d, float(sums[l]), lanes[l]) for the 8 lanes.
inline void fmaLanes(float d, const std::int32_t* sums, float* lanes)
{
    for (int l = 0; l < 8; ++l)
        lanes[l] = std::fma(d, static_cast<float>(sums[l]), lanes[l]);
}

// A kernel's loop over the tokens of `span`, up to 8 at a time: each of the row's `blocks`
// blocks is read once (read(k, block)) and added by every token of the group to its own sums
// (add(sums, block, token, k)), then y[token * yStride] = finish(sums). Block is what a kernel
// reads out of a stored block, Sums what it keeps per output; both start value-initialized.
template <class Block, class Sums, class Read, class Add, class Finish>
void overTokens(qdot::TokenSpan span, std::int64_t blocks, float* y, std::int64_t yStride, Read read, Add add, Finish finish)
{
    constexpr std::int64_t kGroup = 8;
    Block block{};
    for (std::int64_t first = span.first; first < span.first + span.count; first += kGroup) {
        const std::int64_t count = std::min(kGroup, span.first + span.count - first);
        Sums sums[kGroup]{};
        for (std::int64_t k = 0; k < blocks; ++k) {
            read(k, block);
            for (std::int64_t i = 0; i < count; ++i)
                add(sums[i], block, first + i, k);
        }
        for (std::int64_t i = 0; i < count; ++i)
            y[(first + i) * yStride] = finish(sums[i]);
    }
}

}  // namespace gguf::ggmldot
