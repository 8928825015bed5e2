#include "core/kernels/QuantizedDotScalar.h"

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"

#include <cmath>

namespace gguf::qdot {

namespace {

// Q8_0 and Q4_0: per 32-block, lane l += d * (the integer dot of values 4l .. 4l + 3).
template <typename ValueAt>
float legacyDot(const std::uint8_t* row, std::size_t blockBytes, const Q8Activations& x, std::int64_t token, ValueAt valueAt)
{
    const std::int8_t* a = x.valuesOf(token);
    const float* da = x.scalesOf(token);
    float lanes[8] = {};
    for (std::int64_t b = 0; b < x.columns / 32; ++b) {
        const std::uint8_t* block = row + static_cast<std::size_t>(b) * blockBytes;
        const float d = kernels::loadF16(block) * da[b];
        for (int l = 0; l < 8; ++l) {
            std::int32_t sum = 0;
            for (int i = 4 * l; i < 4 * l + 4; ++i)
                sum += valueAt(block, i) * a[b * 32 + i];
            lanes[l] = std::fma(d, static_cast<float>(sum), lanes[l]);
        }
    }
    return sumLanes8(lanes);
}

float q4kDot(const std::uint8_t* row, const Q8Activations& x, std::int64_t token)
{
    using L = blocks::Q4_K;
    const std::int8_t* a = x.valuesOf(token);
    const std::int16_t* sums = x.sumsOf(token);
    float lanes[8] = {};
    float minLanes[4] = {};
    for (std::int64_t b = 0; b < x.columns / 256; ++b) {
        const std::uint8_t* block = row + static_cast<std::size_t>(b) * L::bytes;
        const float dA = x.scalesOf(token)[b];
        const float d = dA * kernels::loadF16(block + L::d);
        const float dmin = -dA * kernels::loadF16(block + L::dmin);
        int scale[8], min[8];
        for (int j = 0; j < 8; ++j)
            q4kScaleMin(block + L::scales, j, scale[j], min[j]);
        for (int k = 0; k < 4; ++k) {
            const std::int16_t* s = sums + b * 16 + k * 4;
            const std::int32_t m = min[2 * k] * (s[0] + s[1]) + min[2 * k + 1] * (s[2] + s[3]);
            minLanes[k] = std::fma(dmin, static_cast<float>(m), minLanes[k]);
        }
        const std::int8_t* ab = a + b * 256;
        for (int l = 0; l < 8; ++l) {
            std::int32_t sum = 0;
            for (int j = 0; j < 8; ++j) {
                std::int32_t part = 0;
                for (int i = 32 * j + 4 * l; i < 32 * j + 4 * l + 4; ++i) {
                    // Values 64c .. 64c + 31 are the low nibbles of bytes 32c .. 32c + 31, the next 32 the high.
                    const std::uint8_t byte = block[L::qs + 32 * (i / 64) + i % 32];
                    part += ((i % 64) < 32 ? byte & 0xF : byte >> 4) * ab[i];
                }
                sum += scale[j] * part;
            }
            lanes[l] = std::fma(d, static_cast<float>(sum), lanes[l]);
        }
    }
    return sumLanes8(lanes) + ((minLanes[0] + minLanes[2]) + (minLanes[1] + minLanes[3]));
}

float q4kRepackedDot(const std::uint8_t* row, const Q8Activations& x, std::int64_t token)
{
    using L = blocks::Q4_K;
    const std::int8_t* a = x.valuesOf(token);
    const std::int16_t* sums = x.sumsOf(token);
    float acc = 0.0f, accMin = 0.0f;
    for (std::int64_t b = 0; b < x.columns / 256; ++b) {
        const std::uint8_t* block = row + static_cast<std::size_t>(b) * L::bytes;
        const float dA = x.scalesOf(token)[b];
        std::int32_t sum = 0, minSum = 0;
        for (int j = 0; j < 8; ++j) {
            int scale = 0, min = 0;
            q4kScaleMin(block + L::scales, j, scale, min);
            std::int32_t part = 0;
            for (int i = 32 * j; i < 32 * j + 32; ++i) {
                const std::uint8_t byte = block[L::qs + 32 * (i / 64) + i % 32];
                part += ((i % 64) < 32 ? byte & 0xF : byte >> 4) * a[b * 256 + i];
            }
            sum += scale * part;
            minSum += min * (sums[b * 16 + 2 * j] + sums[b * 16 + 2 * j + 1]);
        }
        acc = std::fma(static_cast<float>(sum), kernels::loadF16(block + L::d) * dA, acc);
        accMin = std::fma(static_cast<float>(minSum), kernels::loadF16(block + L::dmin) * dA, accMin);
    }
    return acc - accMin;
}

float q6kDot(const std::uint8_t* row, const Q8Activations& x, std::int64_t token)
{
    using L = blocks::Q6_K;
    const std::int8_t* a = x.valuesOf(token);
    float lanes[8] = {};
    for (std::int64_t b = 0; b < x.columns / 256; ++b) {
        const std::uint8_t* block = row + static_cast<std::size_t>(b) * L::bytes;
        const float d = x.scalesOf(token)[b] * kernels::loadF16(block + L::d);
        const std::int8_t* ab = a + b * 256;
        for (int l = 0; l < 8; ++l) {
            std::int32_t sum = 0;
            for (int c = 0; c < 8; ++c)
                for (int i = 32 * c + 4 * l; i < 32 * c + 4 * l + 4; ++i) {
                    // Value i: half h = i / 128; within it, quarter q = (i % 128) / 32 takes the low
                    // (q < 2) or high nibble of ql[64h + i % 64] and bits 2q, 2q + 1 of qh[32h + i % 32].
                    const int h = i / 128, q = (i % 128) / 32;
                    const std::uint8_t low = block[L::ql + 64 * h + i % 64];
                    const std::uint8_t high = block[L::qh + 32 * h + i % 32];
                    const int value = ((q < 2 ? low & 0xF : low >> 4) | (((high >> (2 * q)) & 3) << 4)) - 32;
                    const int scale = static_cast<std::int8_t>(block[L::scales + i / 16]);
                    sum += scale * value * ab[i];
                }
            lanes[l] = std::fma(d, static_cast<float>(sum), lanes[l]);
        }
    }
    return sumLanes8(lanes);
}

}  // namespace

float scalarDot(QuantizedWeight type, const std::uint8_t* row, const Q8Activations& x, std::int64_t token)
{
    switch (type) {
    case QuantizedWeight::Q8_0:
        return legacyDot(row, blocks::Q8_0::bytes, x, token, [](const std::uint8_t* block, int i) {
            return static_cast<int>(static_cast<std::int8_t>(block[blocks::Q8_0::qs + i]));
        });
    case QuantizedWeight::Q4_0:
        return legacyDot(row, blocks::Q4_0::bytes, x, token, [](const std::uint8_t* block, int i) {
            const std::uint8_t byte = block[blocks::Q4_0::qs + i % 16];
            return (i < 16 ? byte & 0xF : byte >> 4) - 8;
        });
    case QuantizedWeight::Q4_K:
        return q4kDot(row, x, token);
    case QuantizedWeight::Q4_K_8x8:
        return q4kRepackedDot(row, x, token);
    case QuantizedWeight::Q6_K:
        return q6kDot(row, x, token);
    }
    return 0.0f;
}

}  // namespace gguf::qdot
