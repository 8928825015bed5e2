// Types whose ggml quantizer ignores importance weights (ggml_quantize_chunk runs the _ref
// quantizer for them either way): the ternary TQ1_0 / TQ2_0, the FP4 types MXFP4 / NVFP4, the
// 1- and 2-bit Q1_0 / Q2_0, and Q8_K (ggml's quantize_row_q8_K_ref; ggml_quantize_chunk refuses
// it, but it is the activation type of K-quant dot products and people ask for its error).

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/HalfFloat.h"
#include "core/quantize/Fp4Avx2.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);

// C's lroundf (half away from zero) narrowed to int as ggml's `int xi = lroundf(v)` does on
// x86-64: values out of long's range (and NaN) give LONG_MIN, whose low 32 bits are 0.
int roundHalfAway(float v)
{
    if (!(v > -9.2e18f && v < 9.2e18f))
        return 0;
    return static_cast<int>(static_cast<long>(std::lround(v)));
}

float absMax(const float* x, int n)
{
    float amax = 0.0f;
    for (int j = 0; j < n; ++j) {
        const float a = fabsOf(x[j]);
        amax = amax > a ? amax : a;  // ggml's MAX(amax, fabsf(v))
    }
    return amax;
}

// Nearest doubled E2M1 value times e; the first wins ties (ggml's best_index_mxfp4).
std::uint8_t bestFp4Index(float x, float e)
{
    int best = 0;
    float bestError = fabsOf(float(codebooks::kvalues_fp4[0]) * e - x);
    for (int i = 1; i < 16; ++i) {
        const float error = fabsOf(float(codebooks::kvalues_fp4[i]) * e - x);
        if (error < bestError) {
            best = i;
            bestError = error;
        }
    }
    return static_cast<std::uint8_t>(best);
}

// ggml_fp32_to_ue4m3: unsigned E4M3 (bias 7) rounding on the first dropped mantissa bit,
// saturating at 0x7E (448); non-positive and NaN give 0.
std::uint8_t toUe4m3(float x)
{
    if (!(x > 0.0f))
        return 0;
    if (x > 448.0f)
        x = 448.0f;
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    int exponent = int((bits >> 23) & 0xFF) - 127 + 7;
    if (exponent <= 0) {
        const int mantissa = std::min(7, static_cast<int>(x * 512.0f + 0.5f));
        return mantissa < 1 ? 0 : static_cast<std::uint8_t>(mantissa);
    }
    if (exponent >= 15)
        return 0x7E;
    int mantissa = int((bits >> 20) & 7) + int((bits >> 19) & 1);
    if (mantissa > 7) {
        mantissa = 0;
        if (++exponent >= 15)
            return 0x7E;
    }
    return static_cast<std::uint8_t>((exponent << 3) | mantissa);
}

}  // namespace

// TQ1_0: d = absmax; levels -1/0/1 packed five base-3 digits per byte (160 + 80 elements in qs)
// and four per byte (16 elements in qh), each byte scaled to ceil(q * 256 / 243).
void quantizeTQ1_0(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    if (const TernaryAvx2Fn fast = tq1_0Avx2())
        return fast(x, dst, blockCount, quantizeTQ1_0Scalar);
    quantizeTQ1_0Scalar(x, dst, blockCount);
}

void quantizeTQ1_0Scalar(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::TQ1_0;
    for (std::size_t b = 0; b < blockCount; ++b, dst += B::bytes) {
        const float d = absMax(x, QK_K);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeF16(dst + B::d, d);
        auto level = [&](const float* at) { return roundHalfAway(*at * id); };
        auto pack = [&](const float* xs, int stride, int digits, int shiftTrits) {
            std::uint8_t q = 0;
            for (int n = 0; n < digits; ++n)
                q = static_cast<std::uint8_t>(q * 3 + level(xs + n * stride) + 1);
            for (int s = 0; s < shiftTrits; ++s)
                q = static_cast<std::uint8_t>(q * 3);
            return static_cast<std::uint8_t>((std::uint16_t(q) * 256 + (243 - 1)) / 243);
        };
        for (int m = 0; m < 32; ++m)
            dst[B::qs + m] = pack(x + m, 32, 5, 0);
        x += 5 * 32;
        for (int m = 0; m < 16; ++m)
            dst[B::qs + 32 + m] = pack(x + m, 16, 5, 0);
        x += 5 * 16;
        for (int j = 0; j < 4; ++j)
            dst[B::qh + j] = pack(x + j, 4, 4, 1);
        x += 16;
    }
}

// TQ2_0: d = absmax; level + 1 (0..2) in bit pairs, four 32-element groups per 32 bytes.
void quantizeTQ2_0(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    if (const TernaryAvx2Fn fast = tq2_0Avx2())
        return fast(x, dst, blockCount, quantizeTQ2_0Scalar);
    quantizeTQ2_0Scalar(x, dst, blockCount);
}

void quantizeTQ2_0Scalar(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::TQ2_0;
    for (std::size_t b = 0; b < blockCount; ++b, dst += B::bytes) {
        const float d = absMax(x, QK_K);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeF16(dst + B::d, d);
        for (int j = 0; j < 64; j += 32, x += 128) {
            for (int m = 0; m < 32; ++m) {
                unsigned q = 0;
                for (int n = 0; n < 4; ++n) {
                    const int l = roundHalfAway(x[m + n * 32] * id);
                    q += unsigned((l + 1) & 3) << (2 * n);
                }
                dst[B::qs + j + m] = static_cast<std::uint8_t>(q);
            }
        }
    }
}

// MXFP4: shared exponent e = floor(log2(absmax)) - 2 + 127, each element the nearest E2M1 value.
void quantizeMXFP4(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::MXFP4;
    const AbsMaxFn fastMax = absMaxAvx2();
    for (std::size_t b = 0; b < blockCount; ++b, x += 32, dst += B::bytes) {
        float amax = 0.0f;
        if (fastMax) {
            amax = fastMax(x, 32);
        } else {
            for (int j = 0; j < 32; ++j)
                if (amax < fabsOf(x[j]))
                    amax = fabsOf(x[j]);
        }
        const std::uint8_t e = amax > 0.0f ? castToByte(std::floor(std::log2(amax)) - 2.0f + 127.0f) : 0;
        const float d = e8m0ToF32Half(e);
        dst[B::e] = e;
        if (const Fp4IndicesFn fast = fp4IndicesAvx2()) {
            std::uint8_t indices[32];
            fast(x, 32, d, indices);
            for (int j = 0; j < 16; ++j)
                dst[B::qs + j] = static_cast<std::uint8_t>(indices[j] | (indices[j + 16] << 4));
            continue;
        }
        for (int j = 0; j < 16; ++j)
            dst[B::qs + j] = static_cast<std::uint8_t>(bestFp4Index(x[j], d) | (bestFp4Index(x[j + 16], d) << 4));
    }
}

// NVFP4: four 16-element sub-blocks, each with a UE4M3 scale absmax / 6.
void quantizeNVFP4(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::NVFP4;
    for (std::size_t b = 0; b < blockCount; ++b, dst += B::bytes) {
        for (int s = 0; s < 4; ++s, x += 16) {
            float amax = 0.0f;
            for (int j = 0; j < 16; ++j)
                if (amax < fabsOf(x[j]))
                    amax = fabsOf(x[j]);
            const std::uint8_t ue = toUe4m3(amax / 6.0f);
            dst[B::d + s] = ue;
            const float d = ue4m3ToF32Half(ue);
            if (const Fp4IndicesFn fast = fp4IndicesAvx2()) {
                std::uint8_t indices[16];
                fast(x, 16, d, indices);
                for (int j = 0; j < 8; ++j)
                    dst[B::qs + 8 * s + j] = static_cast<std::uint8_t>(indices[j] | (indices[j + 8] << 4));
                continue;
            }
            for (int j = 0; j < 8; ++j)
                dst[B::qs + 8 * s + j] = static_cast<std::uint8_t>(bestFp4Index(x[j], d) | (bestFp4Index(x[j + 8], d) << 4));
        }
    }
}

// Q1_0: d = mean |x| over 128 elements, one sign bit per element (set for x >= 0).
void quantizeQ1_0(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q1_0;
    for (std::size_t b = 0; b < blockCount; ++b, x += 128, dst += B::bytes) {
        float sumAbs = 0.0f;
        for (int j = 0; j < 128; ++j)
            sumAbs += fabsOf(x[j]);
        storeF16(dst + B::d, sumAbs / 128.0f);
        if (const SignBitsFn fast = signBitsAvx2()) {
            fast(x, 128, dst + B::qs);
            continue;
        }
        std::memset(dst + B::qs, 0, 16);
        for (int j = 0; j < 128; ++j)
            if (x[j] >= 0.0f)
                dst[B::qs + j / 8] = static_cast<std::uint8_t>(dst[B::qs + j / 8] | (1u << (j % 8)));
    }
}

// Q2_0: d = absmax over 64 elements, level round(x / d) clamped to -1..2, stored + 1.
void quantizeQ2_0(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q2_0;
    const AbsMaxFn fastMax = absMaxAvx2();
    for (std::size_t b = 0; b < blockCount; ++b, x += 64, dst += B::bytes) {
        float amax = 0.0f;
        if (fastMax) {
            amax = fastMax(x, 64);  // NaN skipped, as the scalar `fabs > amax` does
        } else {
            for (int j = 0; j < 64; ++j)
                if (fabsOf(x[j]) > amax)
                    amax = fabsOf(x[j]);
        }
        const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        storeF16(dst + B::d, amax);
        std::memset(dst + B::qs, 0, 16);
        std::int32_t rounded[64];
        const RoundTimesFn fast = roundTimesAvx2();
        const bool haveRounded = fast && fast(x, 64, id, rounded);
        for (int j = 0; j < 64; ++j) {
            int q = 0;
            if (haveRounded) {
                q = rounded[j];
            } else {
                const float r = std::round(x[j] * id);
                // (int)roundf(v) on x86-64: cvttss2si, INT32_MIN for NaN and out of range.
                q = (r > -2147483904.0f && r < 2147483648.0f) ? static_cast<int>(r) : INT32_MIN;
            }
            q = q + 1;
            q = std::clamp(q, 0, 3);
            dst[B::qs + j / 4] = static_cast<std::uint8_t>(dst[B::qs + j / 4] | (q << ((j % 4) * 2)));
        }
    }
}

// Q8_K: f32 d = max / -127 of the signed absmax, int8 levels capped at 127, and the sum of each
// 16 levels as int16 (bsums). An all-zero block is all zero bytes.
void quantizeQ8_K(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q8_K;
    for (std::size_t b = 0; b < blockCount; ++b, x += QK_K, dst += B::bytes) {
        float max = 0.0f;
        float amax = 0.0f;
        for (int j = 0; j < QK_K; ++j) {
            const float ax = fabsOf(x[j]);
            if (ax > amax) {
                amax = ax;
                max = x[j];
            }
        }
        if (amax == 0.0f) {
            std::memset(dst, 0, B::bytes);
            continue;
        }
        const float iscale = -127.0f / max;
        std::int8_t* qs = reinterpret_cast<std::int8_t*>(dst + B::qs);
        for (int j = 0; j < QK_K; ++j)
            qs[j] = static_cast<std::int8_t>(std::min(127, nearestInt(iscale * x[j])));
        for (int j = 0; j < QK_K / 16; ++j) {
            int sum = 0;
            for (int ii = 0; ii < 16; ++ii)
                sum += qs[j * 16 + ii];
            const std::uint16_t bits = static_cast<std::uint16_t>(static_cast<std::int16_t>(sum));
            dst[B::bsums + 2 * j] = static_cast<std::uint8_t>(bits & 0xFF);
            dst[B::bsums + 2 * j + 1] = static_cast<std::uint8_t>(bits >> 8);
        }
        storeU32(dst + B::d, std::bit_cast<std::uint32_t>(1.0f / iscale));
    }
}

}  // namespace gguf::quantize
