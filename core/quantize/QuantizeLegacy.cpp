// Legacy 32-element blocks: one f16 scale (and min) per block from the block's extremes, then
// every element rounded on its own. Byte j of qs holds element j (low nibble) and j + 16 (high),
// the layout the kernels in kernels/KernelsLegacy.cpp read back.

#include "core/kernels/BlockLayouts.h"
#include "core/quantize/LegacyAvx2.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace gguf::quantize {

namespace {

constexpr int kBlock = 32;

// The value of largest magnitude with its sign; the first wins ties (ggml's `amax < fabsf(v)`).
float signedAbsMax(const float* x)
{
    float amax = 0.0f;
    float max = 0.0f;
    for (int j = 0; j < kBlock; ++j) {
        if (amax < fabsOf(x[j])) {
            amax = fabsOf(x[j]);
            max = x[j];
        }
    }
    return max;
}

void minMax(const float* x, float* min, float* max)
{
    *min = FLT_MAX;
    *max = -FLT_MAX;
    for (int j = 0; j < kBlock; ++j) {
        if (x[j] < *min)
            *min = x[j];
        if (x[j] > *max)
            *max = x[j];
    }
}

float inverse(float d)
{
    return d != 0.0f ? 1.0f / d : 0.0f;
}

// ggml's MIN(limit, (int8_t)(value)) stored into a uint8_t.
std::uint8_t cappedLevel(float value, int limit)
{
    const int level = static_cast<std::int8_t>(castToByte(value));
    return static_cast<std::uint8_t>(std::min(limit, level));
}

// The 5th bits of a Q5 block: bit j of qh is element j's bit 4.
void packQ5(const std::uint8_t* levels, std::uint8_t* qs, std::uint8_t* qhBytes)
{
    std::uint32_t qh = 0;
    for (int j = 0; j < kBlock / 2; ++j) {
        const std::uint8_t lo = levels[j];
        const std::uint8_t hi = levels[j + kBlock / 2];
        qs[j] = static_cast<std::uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
        qh |= ((lo & 0x10u) >> 4) << j;
        qh |= ((hi & 0x10u) >> 4) << (j + kBlock / 2);
    }
    storeU32(qhBytes, qh);
}

}  // namespace

// Q4_0: d = (signed absmax) / -8, level = min(15, trunc(x/d + 8.5)).
void quantizeQ4_0(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    if (const LegacyAvx2Fn fast = legacyAvx2().q4_0)
        return fast(src, dst, blockCount, quantizeQ4_0Scalar);
    quantizeQ4_0Scalar(src, dst, blockCount);
}

void quantizeQ4_0Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q4_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += B::bytes) {
        const float d = signedAbsMax(src) / -8.0f;
        const float id = inverse(d);
        storeF16(dst + B::d, d);
        for (int j = 0; j < kBlock / 2; ++j) {
            const std::uint8_t lo = cappedLevel(src[j] * id + 8.5f, 15);
            const std::uint8_t hi = cappedLevel(src[j + kBlock / 2] * id + 8.5f, 15);
            dst[B::qs + j] = static_cast<std::uint8_t>(lo | (hi << 4));
        }
    }
}

// Q4_1: d = (max - min) / 15, m = min, level = min(15, trunc((x - min)/d + 0.5)).
void quantizeQ4_1(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    if (const LegacyAvx2Fn fast = legacyAvx2().q4_1)
        return fast(src, dst, blockCount, quantizeQ4_1Scalar);
    quantizeQ4_1Scalar(src, dst, blockCount);
}

void quantizeQ4_1Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q4_1;
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += B::bytes) {
        float min = 0.0f;
        float max = 0.0f;
        minMax(src, &min, &max);
        const float d = (max - min) / 15.0f;
        const float id = inverse(d);
        storeF16(dst + B::d, d);
        storeF16(dst + B::m, min);
        for (int j = 0; j < kBlock / 2; ++j) {
            const std::uint8_t lo = cappedLevel((src[j] - min) * id + 0.5f, 15);
            const std::uint8_t hi = cappedLevel((src[j + kBlock / 2] - min) * id + 0.5f, 15);
            dst[B::qs + j] = static_cast<std::uint8_t>(lo | (hi << 4));
        }
    }
}

// Q5_0: d = (signed absmax) / -16, level = min(31, trunc(x/d + 16.5)).
void quantizeQ5_0(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    if (const LegacyAvx2Fn fast = legacyAvx2().q5_0)
        return fast(src, dst, blockCount, quantizeQ5_0Scalar);
    quantizeQ5_0Scalar(src, dst, blockCount);
}

void quantizeQ5_0Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q5_0;
    std::uint8_t levels[kBlock];
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += B::bytes) {
        const float d = signedAbsMax(src) / -16.0f;
        const float id = inverse(d);
        storeF16(dst + B::d, d);
        for (int j = 0; j < kBlock; ++j)
            levels[j] = cappedLevel(src[j] * id + 16.5f, 31);
        packQ5(levels, dst + B::qs, dst + B::qh);
    }
}

// Q5_1: d = (max - min) / 31, m = min, level = trunc((x - min)/d + 0.5) (no cap, as in ggml).
void quantizeQ5_1(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    if (const LegacyAvx2Fn fast = legacyAvx2().q5_1)
        return fast(src, dst, blockCount, quantizeQ5_1Scalar);
    quantizeQ5_1Scalar(src, dst, blockCount);
}

void quantizeQ5_1Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q5_1;
    std::uint8_t levels[kBlock];
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += B::bytes) {
        float min = 0.0f;
        float max = 0.0f;
        minMax(src, &min, &max);
        const float d = (max - min) / 31.0f;
        const float id = inverse(d);
        storeF16(dst + B::d, d);
        storeF16(dst + B::m, min);
        for (int j = 0; j < kBlock; ++j)
            levels[j] = castToByte((src[j] - min) * id + 0.5f);
        packQ5(levels, dst + B::qs, dst + B::qh);
    }
}

// Q8_0: d = absmax / 127, level = roundf(x/d) (half away from zero).
void quantizeQ8_0(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    if (const LegacyAvx2Fn fast = legacyAvx2().q8_0)
        return fast(src, dst, blockCount, quantizeQ8_0Scalar);
    quantizeQ8_0Scalar(src, dst, blockCount);
}

void quantizeQ8_0Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q8_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += B::bytes) {
        float amax = 0.0f;
        for (int j = 0; j < kBlock; ++j) {
            const float a = fabsOf(src[j]);
            amax = amax > a ? amax : a;  // ggml's MAX(amax, fabsf(v)), NaN handling included
        }
        const float d = amax / 127.0f;
        const float id = inverse(d);
        storeF16(dst + B::d, d);
        for (int j = 0; j < kBlock; ++j)
            dst[B::qs + j] = castToByte(std::round(src[j] * id));
    }
}

}  // namespace gguf::quantize
