// The kernels of GgmlDot.h for K-quants and the ternary types against q8_K activations
// (ggml-cpu's arch/x86/quants.c and arch/x86/repack.cpp). Every super-block is first read
// into its integer weights in value order and the integer scales of its 16- or 32-value
// sub-blocks; the kernels then sum as ggml does.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/GgmlDot.h"
#include "core/kernels/GgmlDotLanes.h"
#include "core/kernels/QuantizedDotVector.h"

#include <cmath>

namespace gguf::ggmldot {

namespace {

namespace b = blocks;
using kernels::loadF16;
using kernels::loadLe;

// Q2_K: value v is bits 2((v % 128) / 32) of byte 32 (v / 128) + v % 32; each 16 values have
// a 4-bit scale (low nibble of scales[v / 16]) and a 4-bit minimum (high nibble).
void readQ2_K(const std::uint8_t* block, std::int8_t* w, int* scale16, int* min16)
{
    for (int v = 0; v < 256; ++v)
        w[v] = static_cast<std::int8_t>((block[b::Q2_K::qs + 32 * (v / 128) + v % 32] >> (2 * ((v % 128) / 32))) & 3);
    for (int j = 0; j < 16; ++j) {
        scale16[j] = block[b::Q2_K::scales + j] & 0xF;
        min16[j] = block[b::Q2_K::scales + j] >> 4;
    }
}

// Q3_K: Q2_K's low bits, less 4 where bit v / 32 of hmask[v % 32] is clear; 6-bit scales less 32.
void readQ3_K(const std::uint8_t* block, std::int8_t* w, int* scale16)
{
    using L = b::Q3_K;
    for (int v = 0; v < 256; ++v) {
        const int low = (block[L::qs + 32 * (v / 128) + v % 32] >> (2 * ((v % 128) / 32))) & 3;
        w[v] = static_cast<std::int8_t>(low - (((block[L::hmask + v % 32] >> (v / 32)) & 1) ? 0 : 4));
    }
    const std::uint8_t* packed = block + L::scales;
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? (packed[j] & 0xF) : (packed[j - 8] >> 4);
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        scale16[j] = (low | (high << 4)) - 32;
    }
}

// Q4_K / Q5_K: each 64 values are the low nibbles then the high nibbles of 32 bytes (Q5_K: plus
// 16 where bit v / 32 of qh[v % 32] is set); 6-bit scale and minimum per 32 values.
template <class L>
void readQ4_KLike(const std::uint8_t* block, std::int8_t* w, int* scale32, int* min32)
{
    for (int v = 0; v < 256; ++v) {
        const std::uint8_t byte = block[L::qs + 32 * (v / 64) + v % 32];
        int value = (v % 64) < 32 ? byte & 0xF : byte >> 4;
        if constexpr (requires { L::qh; })
            value += ((block[L::qh + v % 32] >> (v / 32)) & 1) << 4;
        w[v] = static_cast<std::int8_t>(value);
    }
    for (int j = 0; j < 8; ++j)
        qdot::q4kScaleMin(block + L::scales, j, scale32[j], min32[j]);
}

// Q6_K, unsigned (0..63): half h = v / 128, quarter q = (v % 128) / 32 takes the low (q < 2) or
// high nibble of ql[64h + v % 64] and bits 2q, 2q + 1 of qh[32h + v % 32]; int8 scale per 16.
void readQ6_K(const std::uint8_t* block, std::int8_t* w, int* scale16)
{
    using L = b::Q6_K;
    for (int v = 0; v < 256; ++v) {
        const int h = v / 128, q = (v % 128) / 32;
        const std::uint8_t low = block[L::ql + 64 * h + v % 64];
        const std::uint8_t high = block[L::qh + 32 * h + v % 32];
        w[v] = static_cast<std::int8_t>((q < 2 ? low & 0xF : low >> 4) | (((high >> (2 * q)) & 3) << 4));
    }
    for (int j = 0; j < 16; ++j)
        scale16[j] = static_cast<std::int8_t>(block[L::scales + j]);
}

// TQ1_0, unsigned digits (0..2): digit n of qs[m] (m < 32) is value 32n + m, of qs[32 + m]
// (m < 16) value 160 + 16n + m, of qh[j] value 240 + 4n + j; digit n of byte q is
// ((q * 3^n mod 256) * 3) >> 8.
void readTQ1_0(const std::uint8_t* block, std::int8_t* w)
{
    using L = b::TQ1_0;
    const auto digit = [](std::uint8_t packed, int n) {
        static constexpr std::uint8_t pow3[5] = {1, 3, 9, 27, 81};
        return static_cast<std::int8_t>((static_cast<std::uint8_t>(packed * pow3[n]) * 3) >> 8);
    };
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 32; ++m)
            w[32 * n + m] = digit(block[L::qs + m], n);
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 16; ++m)
            w[160 + 16 * n + m] = digit(block[L::qs + 32 + m], n);
    for (int n = 0; n < 4; ++n)
        for (int j = 0; j < 4; ++j)
            w[240 + 4 * n + j] = digit(block[L::qh + j], n);
}

// TQ2_0, unsigned (0..2): bit pair l of byte 32 (v / 128) + v % 32 is value 128 (v / 128) + 32 l + v % 32.
void readTQ2_0(const std::uint8_t* block, std::int8_t* w)
{
    for (int v = 0; v < 256; ++v)
        w[v] = static_cast<std::int8_t>((block[b::TQ2_0::qs + 32 * (v / 128) + v % 32] >> (2 * ((v % 128) / 32))) & 3);
}

void perThirtyTwo(const int* scale32, int* scale16)
{
    for (int j = 0; j < 16; ++j)
        scale16[j] = scale32[j / 2];
}

// Lane l of the q8_K block sums: sub-blocks 2l and 2l + 1 (of 16 values) with their weights,
// as vpmaddwd pairs them.
inline std::int32_t pairedSums(const std::int16_t* bsums, const int* weight16, int l)
{
    return weight16[2 * l] * bsums[2 * l] + weight16[2 * l + 1] * bsums[2 * l + 1];
}

// ggml_vec_dot_q4_K_q8_K / q5_K's minimums: sub-block j (32 values) sum S_j = bsums[2j] + bsums[2j + 1].
inline std::int32_t thirtyTwoSum(const std::int16_t* bsums, int j)
{
    return bsums[2 * j] + bsums[2 * j + 1];
}

// One super-block as the kernels read it: the integer weights in value order, an integer scale
// per 16 values (and a minimum, for the types with one), and the f16 scales.
struct SuperBlock {
    std::int8_t w[256];
    int scale16[16];
    int min16[16];  // Q2_K: per 16; Q4_K / Q5_K: per 32, in the first 8
    float d = 0.0f;
    float dmin = 0.0f;
};

struct Lanes {
    float acc[8] = {};
};
inline float finishLanes(const Lanes& s)
{
    return sumLanes8(s.acc);
}

// The 8 lane sums of a super-block against token t's activation super-block k.
inline void superBlockLanes(const SuperBlock& block, const Q8Activations& x, std::int64_t t, std::int64_t k, std::int32_t* lanes)
{
    for (int l = 0; l < 8; ++l)
        lanes[l] = 0;
    addLaneProducts(block.w, x.valuesOf(t) + 256 * k, 256, block.scale16, lanes);
}

// Reads super-block k of a row of layout L with `read` (weights and scales) and its f16 d (and dmin).
template <class L, auto read>
auto superBlockReader(const std::uint8_t* row)
{
    return [row](std::int64_t k, SuperBlock& block) {
        const std::uint8_t* at = row + k * static_cast<std::int64_t>(L::bytes);
        read(at, block);
        block.d = loadF16(at + L::d);
        if constexpr (requires { L::dmin; })
            block.dmin = loadF16(at + L::dmin);
    };
}

void readQ2_KBlock(const std::uint8_t* at, SuperBlock& block)
{
    readQ2_K(at, block.w, block.scale16, block.min16);
}
void readQ3_KBlock(const std::uint8_t* at, SuperBlock& block)
{
    readQ3_K(at, block.w, block.scale16);
}
template <class L>
void readQ4_KLikeBlock(const std::uint8_t* at, SuperBlock& block)
{
    int scale32[8];
    readQ4_KLike<L>(at, block.w, scale32, block.min16);
    perThirtyTwo(scale32, block.scale16);
}
void readQ6_KBlock(const std::uint8_t* at, SuperBlock& block)
{
    readQ6_K(at, block.w, block.scale16);
}
template <void (*read)(const std::uint8_t*, std::int8_t*)>
void readTernaryBlock(const std::uint8_t* at, SuperBlock& block)
{
    read(at, block.w);
}

// ggml_vec_dot_tq1_0_q8_K / tq2_0 (AVX2): the unsigned digits in lanes, less the block sums
// (lane l: sub-blocks 2l and 2l + 1), then lane = lane + float(sum) * (dA * d), written as a
// product and a sum, which GCC fuses into one multiply-add (its intrinsics are plain vector
// arithmetic, contracted under its default -ffp-contract=fast).
template <void (*read)(const std::uint8_t*, std::int8_t*), class L>
void ternary(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    overTokens<SuperBlock, Lanes>(
        span, x.columns / 256, y, yStride, superBlockReader<L, readTernaryBlock<read>>(row),
        [&](Lanes& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8] = {};
            addLaneProducts(block.w, x.valuesOf(t) + 256 * k, 256, nullptr, lanes);
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            const float d = x.scalesOf(t)[k] * block.d;
            for (int l = 0; l < 8; ++l)
                s.acc[l] = std::fma(static_cast<float>(lanes[l] - (bsums[2 * l] + bsums[2 * l + 1])), d, s.acc[l]);
        },
        finishLanes);
}

// repack.cpp's q4_K x8 kernels: chains of the scaled values and of the minimums, each step
// fma(float(integer), d * dA, chain), `Step` values per step; the output is the difference.
template <int Step>
void q4_Kx8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    struct Sums {
        float acc = 0.0f;
        float accMin = 0.0f;
    };
    overTokens<SuperBlock, Sums>(
        span, x.columns / 256, y, yStride, superBlockReader<b::Q4_K, readQ4_KLikeBlock<b::Q4_K>>(row),
        [&](Sums& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            const float dA = x.scalesOf(t)[k];
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            const std::int8_t* a = x.valuesOf(t) + 256 * k;
            for (int first = 0; first < 256; first += Step) {
                std::int32_t sum = 0, minSum = 0;
                for (int j = first / 32; j < (first + Step) / 32; ++j) {
                    std::int32_t part = 0;
                    for (int v = 32 * j; v < 32 * j + 32; ++v)
                        part += block.w[v] * a[v];
                    sum += block.scale16[2 * j] * part;
                    minSum += block.min16[j] * thirtyTwoSum(bsums, j);
                }
                s.acc = std::fma(static_cast<float>(sum), block.d * dA, s.acc);
                s.accMin = std::fma(static_cast<float>(minSum), block.dmin * dA, s.accMin);
            }
        },
        [](const Sums& s) { return s.acc - s.accMin; });
}

// Each super-block of a row through `read` into `out` (QuantizedDotVector.h).
template <class L, auto read>
void prepareRow(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    const auto next = superBlockReader<L, read>(row);
    SuperBlock block;
    for (std::int64_t k = 0; k < columns / 256; ++k) {
        next(k, block);
        storeWideScaled(block.w, block.scale16, out.weights + 256 * k);
        out.d[k] = block.d;
        if constexpr (requires { L::dmin; }) {
            out.dmin[k] = block.dmin;
            for (int j = 0; j < 16; ++j)
                out.mins[16 * k + j] = static_cast<std::int16_t>(block.min16[j]);
        }
    }
}

}  // namespace

void prepareQ2_K(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<b::Q2_K, readQ2_KBlock>(row, columns, out);
}

void prepareQ3_K(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<b::Q3_K, readQ3_KBlock>(row, columns, out);
}

// ggml_vec_dot_q2_K_q8_K (AVX2): per super-block, first the minimums, lane l taking sub-blocks
// 2l and 2l + 1 (fma(-dA * dmin, min * bsum pairs, lane)), then the values (fma(dA * d, lane sum)).
void q2_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    overTokens<SuperBlock, Lanes>(
        span, x.columns / 256, y, yStride, superBlockReader<b::Q2_K, readQ2_KBlock>(row),
        [&](Lanes& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            const float dA = x.scalesOf(t)[k];
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            const float dmin = -dA * block.dmin;
            for (int l = 0; l < 8; ++l)
                s.acc[l] = std::fma(dmin, static_cast<float>(pairedSums(bsums, block.min16, l)), s.acc[l]);
            std::int32_t lanes[8];
            superBlockLanes(block, x, t, k, lanes);
            fmaLanes(dA * block.d, lanes, s.acc);
        },
        finishLanes);
}

// ggml_vec_dot_q3_K_q8_K (AVX2): per super-block lane = fma(dA * d, lane sum, lane).
void q3_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    overTokens<SuperBlock, Lanes>(
        span, x.columns / 256, y, yStride, superBlockReader<b::Q3_K, readQ3_KBlock>(row),
        [&](Lanes& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8];
            superBlockLanes(block, x, t, k, lanes);
            fmaLanes(x.scalesOf(t)[k] * block.d, lanes, s.acc);
        },
        finishLanes);
}

// ggml_vec_dot_q4_K_q8_K (AVX2): the values in 8 lanes (fma(dA * d, lane sum)); beside them 4
// lanes of minimums, lane j taking sub-blocks 2j and 2j + 1 (fma(-dA * dmin, min * S)); the
// sum of the 8 lanes plus that of the 4 ((0 + 2) + (1 + 3)).
void q4_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    struct Sums {
        float acc[8] = {};
        float accMin[4] = {};
    };
    overTokens<SuperBlock, Sums>(
        span, x.columns / 256, y, yStride, superBlockReader<b::Q4_K, readQ4_KLikeBlock<b::Q4_K>>(row),
        [&](Sums& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            const float dA = x.scalesOf(t)[k];
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            const float dmin = -dA * block.dmin;
            for (int j = 0; j < 4; ++j) {
                const std::int32_t m = block.min16[2 * j] * thirtyTwoSum(bsums, 2 * j) + block.min16[2 * j + 1] * thirtyTwoSum(bsums, 2 * j + 1);
                s.accMin[j] = std::fma(dmin, static_cast<float>(m), s.accMin[j]);
            }
            std::int32_t lanes[8];
            superBlockLanes(block, x, t, k, lanes);
            fmaLanes(dA * block.d, lanes, s.acc);
        },
        [](const Sums& s) { return sumLanes8(s.acc) + ((s.accMin[0] + s.accMin[2]) + (s.accMin[1] + s.accMin[3])); });
}

// ggml_vec_dot_q5_K_q8_K (AVX2): the values as Q4_K's; the minimums as one integer per
// super-block, summs = fma(-dA * dmin, that, summs); the lane sum plus summs.
void q5_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    struct Sums {
        float acc[8] = {};
        float summs = 0.0f;
    };
    overTokens<SuperBlock, Sums>(
        span, x.columns / 256, y, yStride, superBlockReader<b::Q5_K, readQ4_KLikeBlock<b::Q5_K>>(row),
        [&](Sums& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            const float dA = x.scalesOf(t)[k];
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            std::int32_t m = 0;
            for (int j = 0; j < 8; ++j)
                m += block.min16[j] * thirtyTwoSum(bsums, j);
            s.summs = std::fma(-dA * block.dmin, static_cast<float>(m), s.summs);
            std::int32_t lanes[8];
            superBlockLanes(block, x, t, k, lanes);
            fmaLanes(dA * block.d, lanes, s.acc);
        },
        [](const Sums& s) { return sumLanes8(s.acc) + s.summs; });
}

// ggml_vec_dot_q6_K_q8_K (AVX2): the unsigned values in lanes, less 32 times the scaled block
// sums paired by vpmaddwd (lane l: sub-blocks 2l and 2l + 1), then fma(dA * d, lane).
void q6_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    overTokens<SuperBlock, Lanes>(
        span, x.columns / 256, y, yStride, superBlockReader<b::Q6_K, readQ6_KBlock>(row),
        [&](Lanes& s, const SuperBlock& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8];
            superBlockLanes(block, x, t, k, lanes);
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            for (int l = 0; l < 8; ++l)
                lanes[l] -= 32 * pairedSums(bsums, block.scale16, l);
            fmaLanes(x.scalesOf(t)[k] * block.d, lanes, s.acc);
        },
        finishLanes);
}

void tq1_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    ternary<readTQ1_0, b::TQ1_0>(row, x, span, y, yStride);
}

void tq2_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    ternary<readTQ2_0, b::TQ2_0>(row, x, span, y, yStride);
}

void q4_Kx8Gemv(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    q4_Kx8<256>(row, x, span, y, yStride);
}

void q4_Kx8Gemm(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    q4_Kx8<64>(row, x, span, y, yStride);
}

}  // namespace gguf::ggmldot
