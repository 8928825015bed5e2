// The kernels of GgmlDot.h for weights in blocks of 32, 64 or 128 values against q8_0 or q8_1
// activations (blocks of 32): ggml-cpu's arch/x86/quants.c, llamafile's tinyBLAS and
// arch/x86/repack.cpp's 8x8 kernels.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/GgmlDot.h"
#include "core/kernels/GgmlDotLanes.h"
#include "core/kernels/HalfFloat.h"

#include <cmath>
#include <cstring>

namespace gguf::ggmldot {

namespace {

namespace b = blocks;
using kernels::loadF16;
using kernels::loadLe;

// ---- the integer weights of one 32-value block, in value order -------------------------------

// Values 0..15 are the low nibbles of the 16 bytes, 16..31 the high ones.
inline int nibble(const std::uint8_t* qs, int v)
{
    return v < 16 ? qs[v] & 0xF : qs[v - 16] >> 4;
}

void weightsQ4_0(const std::uint8_t* block, std::int8_t* w)
{
    for (int v = 0; v < 32; ++v)
        w[v] = static_cast<std::int8_t>(nibble(block + b::Q4_0::qs, v) - 8);
}
void weightsQ4_1(const std::uint8_t* block, std::int8_t* w)
{
    for (int v = 0; v < 32; ++v)
        w[v] = static_cast<std::int8_t>(nibble(block + b::Q4_1::qs, v));
}
// Q5: bit v of the 32-bit qh is value v's fifth bit.
template <class L, int Offset>
void weightsQ5(const std::uint8_t* block, std::int8_t* w)
{
    const std::uint32_t qh = loadLe<std::uint32_t>(block + L::qh);
    for (int v = 0; v < 32; ++v)
        w[v] = static_cast<std::int8_t>((nibble(block + L::qs, v) | (((qh >> v) & 1) << 4)) - Offset);
}
void weightsQ8_0(const std::uint8_t* block, std::int8_t* w)
{
    for (int v = 0; v < 32; ++v)
        w[v] = static_cast<std::int8_t>(block[b::Q8_0::qs + v]);
}
void weightsIQ4_NL(const std::uint8_t* block, std::int8_t* w)
{
    for (int v = 0; v < 32; ++v)
        w[v] = codebooks::kvalues_iq4nl[nibble(block + b::IQ4_NL::qs, v)];
}
void weightsMXFP4(const std::uint8_t* block, std::int8_t* w)
{
    for (int v = 0; v < 32; ++v)
        w[v] = codebooks::kvalues_fp4[nibble(block + b::MXFP4::qs, v)];
}

using Weights = void (*)(const std::uint8_t*, std::int8_t*);

inline float f16Scale(const std::uint8_t* block)
{
    return loadF16(block);
}
inline float e8m0Scale(const std::uint8_t* block)
{
    return e8m0ToF32Half(block[b::MXFP4::e]);
}
using BlockScale = float (*)(const std::uint8_t*);

// One 32-value block as the kernels read it: its integer weights and its scale(s).
struct Block32 {
    std::int8_t w[32];
    float d = 0.0f;
    float m = 0.0f;  // q4_1 / q5_1: the minimum
};

// The 8 lanes of one 32-value block against activation block k of a token.
inline void blockLanes(const Block32& block, const Q8Activations& x, std::int64_t token, std::int64_t k, std::int32_t* lanes)
{
    for (int l = 0; l < 8; ++l)
        lanes[l] = 0;
    addLaneProducts(block.w, x.valuesOf(token) + 32 * k, 32, nullptr, lanes);
}

inline std::int32_t blockDot(const Block32& block, const Q8Activations& x, std::int64_t token, std::int64_t k)
{
    // Summed in lanes (exact in any order), where AVX2 forms them fastest.
    std::int32_t lanes[8] = {};
    addLaneProducts(block.w, x.valuesOf(token) + 32 * k, 32, nullptr, lanes);
    std::int32_t dot = 0;
    for (const std::int32_t lane : lanes)
        dot += lane;
    return dot;
}

// Reads block k of `row`.
template <std::size_t BlockBytes, Weights decode, BlockScale scaleOf>
auto reader(const std::uint8_t* row)
{
    return [row](std::int64_t k, Block32& block) {
        const std::uint8_t* at = row + k * static_cast<std::int64_t>(BlockBytes);
        decode(at, block.w);
        block.d = scaleOf(at);
    };
}

struct Lanes {
    float acc[8] = {};
};
inline float finishLanes(const Lanes& s)
{
    return sumLanes8(s.acc);
}

// ggml_vec_dot_q4_0_q8_0 (and q5_0, q8_0) and tinyBLAS_Q0_AVX: 8 lanes, per block
// lane = fma(dW * dA, lane sum, lane), then ggml's horizontal sum.
template <std::size_t BlockBytes, Weights decode, BlockScale scaleOf = f16Scale>
void laneChain(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    overTokens<Block32, Lanes>(
        span, x.columns / 32, y, yStride, reader<BlockBytes, decode, scaleOf>(row),
        [&](Lanes& s, const Block32& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8];
            blockLanes(block, x, t, k, lanes);
            fmaLanes(block.d * x.scalesOf(t)[k], lanes, s.acc);
        },
        finishLanes);
}

// ggml_vec_dot_q4_1_q8_1 / q5_1: the lane chain of the unsigned values, and beside it the
// minimums against the q8_1 block sums, fma(m, s, summs) in order; the two added at the end.
template <class L, Weights decode>
void minimumChain(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    struct Sums {
        float acc[8] = {};
        float summs = 0.0f;
    };
    overTokens<Block32, Sums>(
        span, x.columns / 32, y, yStride,
        [row](std::int64_t k, Block32& block) {
            const std::uint8_t* at = row + k * static_cast<std::int64_t>(L::bytes);
            decode(at, block.w);
            block.d = loadF16(at + L::d);
            block.m = loadF16(at + L::m);
        },
        [&](Sums& s, const Block32& block, std::int64_t t, std::int64_t k) {
            s.summs = std::fma(block.m, x.blockSumsOf(t)[k], s.summs);
            std::int32_t lanes[8];
            blockLanes(block, x, t, k, lanes);
            fmaLanes(block.d * x.scalesOf(t)[k], lanes, s.acc);
        },
        [](const Sums& s) { return sumLanes8(s.acc) + s.summs; });
}

// ggml_vec_dot_iq4_nl_q8_0 / mxfp4_q8_0: blocks in pairs, the first of each pair into one
// lane chain and the second into another, summed lane by lane and then horizontally; an odd
// last block is added as fma(d, its integer dot, sum).
template <std::size_t BlockBytes, Weights decode, BlockScale scaleOf>
void twoChains(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    const std::int64_t count = x.columns / 32;
    struct Sums {
        float acc[2][8] = {};
        float tailScale = 0.0f;  // the odd last block's
        std::int32_t tailDot = 0;
    };
    overTokens<Block32, Sums>(
        span, count, y, yStride, reader<BlockBytes, decode, scaleOf>(row),
        [&](Sums& s, const Block32& block, std::int64_t t, std::int64_t k) {
            const float d = block.d * x.scalesOf(t)[k];
            if (count % 2 == 1 && k + 1 == count) {
                s.tailScale = d;
                s.tailDot = blockDot(block, x, t, k);
                return;
            }
            std::int32_t lanes[8];
            blockLanes(block, x, t, k, lanes);
            fmaLanes(d, lanes, s.acc[k % 2]);
        },
        [count](const Sums& s) {
            float lanes[8];
            for (int l = 0; l < 8; ++l)
                lanes[l] = s.acc[0][l] + s.acc[1][l];
            const float sum = sumLanes8(lanes);
            return count % 2 == 1 ? std::fma(s.tailScale, static_cast<float>(s.tailDot), sum) : sum;
        });
}

// repack.cpp's gemv / gemm of the q4_0, iq4_nl and mxfp4 x8 layouts: per output one chain,
// fma(float(the block's integer dot), dW * dA, acc).
template <std::size_t BlockBytes, Weights decode, BlockScale scaleOf>
void blockChain(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    overTokens<Block32, float>(
        span, x.columns / 32, y, yStride, reader<BlockBytes, decode, scaleOf>(row),
        [&](float& acc, const Block32& block, std::int64_t t, std::int64_t k) {
            acc = std::fma(static_cast<float>(blockDot(block, x, t, k)), block.d * x.scalesOf(t)[k], acc);
        },
        [](float acc) { return acc; });
}

}  // namespace

void q4_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<b::Q4_0::bytes, weightsQ4_0>(row, x, span, y, yStride);
}

void q5_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<b::Q5_0::bytes, weightsQ5<b::Q5_0, 16>>(row, x, span, y, yStride);
}

void q8_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<b::Q8_0::bytes, weightsQ8_0>(row, x, span, y, yStride);
}

void iq4_nlLanes(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<b::IQ4_NL::bytes, weightsIQ4_NL>(row, x, span, y, yStride);
}

void q4_1(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    minimumChain<b::Q4_1, weightsQ4_1>(row, x, span, y, yStride);
}

void q5_1(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    minimumChain<b::Q5_1, weightsQ5<b::Q5_1, 0>>(row, x, span, y, yStride);
}

void iq4_nl(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    twoChains<b::IQ4_NL::bytes, weightsIQ4_NL, f16Scale>(row, x, span, y, yStride);
}

void mxfp4(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    twoChains<b::MXFP4::bytes, weightsMXFP4, e8m0Scale>(row, x, span, y, yStride);
}

void q4_0x8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    blockChain<b::Q4_0::bytes, weightsQ4_0, f16Scale>(row, x, span, y, yStride);
}

void iq4_nlx8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    blockChain<b::IQ4_NL::bytes, weightsIQ4_NL, f16Scale>(row, x, span, y, yStride);
}

void mxfp4x8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    blockChain<b::MXFP4::bytes, weightsMXFP4, e8m0Scale>(row, x, span, y, yStride);
}

// ggml_vec_dot_q1_0_q8_0 (AVX2): per 128-value block, its four q8_0 blocks q each give 8 lanes
// of +-a (the bit picks the sign); they are gathered as acc_block = dA_0 * lanes_0, then
// fma(dA_q, lanes_q, acc_block), and the block adds fma(dW, acc_block, acc).
void q1_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    using L = b::Q1_0;
    struct Read {
        std::uint8_t bits[16];
        float d = 0.0f;
    };
    overTokens<Read, Lanes>(
        span, x.columns / 128, y, yStride,
        [row](std::int64_t k, Read& block) {
            const std::uint8_t* at = row + k * static_cast<std::int64_t>(L::bytes);
            std::memcpy(block.bits, at + L::qs, 16);
            block.d = loadF16(at + L::d);
        },
        [&](Lanes& s, const Read& block, std::int64_t t, std::int64_t k) {
            const std::int8_t* a = x.valuesOf(t);
            float accBlock[8] = {};
            for (int q = 0; q < 4; ++q) {
                std::int32_t lanes[8] = {};
                for (int v = 0; v < 32; ++v) {
                    const int value = a[128 * k + 32 * q + v];
                    lanes[laneOf(v)] += ((block.bits[4 * q + v / 8] >> (v % 8)) & 1) ? value : -value;
                }
                const float scale = x.scalesOf(t)[4 * k + q];
                for (int l = 0; l < 8; ++l)
                    accBlock[l] = q == 0 ? scale * static_cast<float>(lanes[l]) : std::fma(scale, static_cast<float>(lanes[l]), accBlock[l]);
            }
            for (int l = 0; l < 8; ++l)
                s.acc[l] = std::fma(block.d, accBlock[l], s.acc[l]);
        },
        finishLanes);
}

// ggml_vec_dot_q2_0_q8_0_generic (x86 has no vector kernel; GCC fuses its multiply-adds): per
// 64-value block, sumi = fma(dA_q, float(the integer dot of q8_0 block q), sumi) for its two
// q8_0 blocks, then sum = fma(dW, sumi, sum).
void q2_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    using L = b::Q2_0;
    struct Read {
        std::int8_t w[64];
        float d = 0.0f;
    };
    overTokens<Read, float>(
        span, x.columns / 64, y, yStride,
        [row](std::int64_t k, Read& block) {
            const std::uint8_t* at = row + k * static_cast<std::int64_t>(L::bytes);
            for (int v = 0; v < 64; ++v)
                block.w[v] = static_cast<std::int8_t>(((at[L::qs + v / 4] >> (2 * (v % 4))) & 3) - 1);
            block.d = loadF16(at + L::d);
        },
        [&](float& sum, const Read& block, std::int64_t t, std::int64_t k) {
            const std::int8_t* a = x.valuesOf(t) + 64 * k;
            float sumi = 0.0f;
            for (int q = 0; q < 2; ++q) {
                std::int32_t dot = 0;
                for (int v = 0; v < 32; ++v)
                    dot += block.w[32 * q + v] * a[32 * q + v];
                sumi = std::fma(x.scalesOf(t)[2 * k + q], static_cast<float>(dot), sumi);
            }
            sum = std::fma(block.d, sumi, sum);
        },
        [](float sum) { return sum; });
}

// ggml_vec_dot_nvfp4_q8_0 (AVX2): per 64-value block, its two q8_0 blocks each give 8 lanes,
// lanes 0..3 from the first 16-value sub-block and 4..7 from the second; each lane adds
// fma(UE4M3(d_sub) * dA, lane sum, lane), the first q8_0 block's then the second's.
void nvfp4(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    using L = b::NVFP4;
    struct Read {
        std::int8_t w[64];
        float d[4] = {};
    };
    overTokens<Read, Lanes>(
        span, x.columns / 64, y, yStride,
        [row](std::int64_t k, Read& block) {
            const std::uint8_t* at = row + k * static_cast<std::int64_t>(L::bytes);
            // Sub-block s (16 values): its byte j holds value j (low nibble) and j + 8.
            for (int v = 0; v < 64; ++v) {
                const int s = v / 16, i = v % 16;
                const std::uint8_t byte = at[L::qs + 8 * s + i % 8];
                block.w[v] = codebooks::kvalues_fp4[i < 8 ? byte & 0xF : byte >> 4];
            }
            for (int s = 0; s < 4; ++s)
                block.d[s] = ue4m3ToF32Half(at[L::d + s]);
        },
        [&](Lanes& s, const Read& block, std::int64_t t, std::int64_t k) {
            for (int q = 0; q < 2; ++q) {
                std::int32_t lanes[8] = {};
                addLaneProducts(block.w + 32 * q, x.valuesOf(t) + 64 * k + 32 * q, 32, nullptr, lanes);
                for (int l = 0; l < 8; ++l)
                    s.acc[l] = std::fma(block.d[2 * q + l / 4] * x.scalesOf(t)[2 * k + q], static_cast<float>(lanes[l]), s.acc[l]);
            }
        },
        finishLanes);
}

}  // namespace gguf::ggmldot
