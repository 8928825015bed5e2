// K-quants with eight 32-element sub-blocks per 256-element super-block, each with a 6-bit scale
// and a 6-bit min: Q4_K and Q5_K. The sub-block fit is the asymmetric search of ScaleSearch.cpp
// weighted by rms + |x|; scales and mins are quantized against their maxima
// (d = max_scale / 63, dmin = max_min / 63) and the elements re-rounded against the decoded
// scales, as ggml's quantize_row_q4_K_ref / q5_K_ref do.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/HalfFloat.h"
#include "core/quantize/AsymmetricSearch8.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/ScaleSearch.h"

#include <algorithm>
#include <cmath>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);
constexpr int kSub = 32;
constexpr int kSubBlocks = QK_K / kSub;

struct SearchParameters {
    int nmax;
    float rmin;
    float rdelta;
    int nstep;
};

float loadHalf(const std::uint8_t* p)
{
    return f16ToF32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
}

// The inverse of get_scale_min_k4: sub-blocks 0-3 keep 6 bits in bytes 0-3 (scale) and 4-7
// (min); sub-blocks 4-7 keep their low nibbles in bytes 8-11 and top 2 bits in the spare top
// bits of bytes 0-7.
void packScalesMins(const std::uint8_t* ls, const std::uint8_t* lm, std::uint8_t* q)
{
    for (int j = 0; j < kSubBlocks; ++j) {
        if (j < 4) {
            q[j] = ls[j];
            q[j + 4] = lm[j];
        } else {
            q[j + 4] = static_cast<std::uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
            q[j - 4] = static_cast<std::uint8_t>(q[j - 4] | ((ls[j] >> 4) << 6));
            q[j] = static_cast<std::uint8_t>(q[j] | ((lm[j] >> 4) << 6));
        }
    }
}

void unpackScaleMin(int j, const std::uint8_t* q, std::uint8_t* scale, std::uint8_t* min)
{
    if (j < 4) {
        *scale = q[j] & 63;
        *min = q[j + 4] & 63;
    } else {
        *scale = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *min = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// Fills the 12 scale bytes and f16 d / dmin at `block` (offsets of Q4_K and Q5_K agree) and the
// levels L[256] in [0, nmax] of one super-block.
void quantizeSuperBlock(const float* x, std::uint8_t* block, std::uint8_t* L, const SearchParameters& p)
{
    using B = blocks::Q4_K;
    static_assert(B::d == blocks::Q5_K::d && B::dmin == blocks::Q5_K::dmin && B::scales == blocks::Q5_K::scales);
    std::uint8_t scratch[kSub];
    float mins[kSubBlocks];
    float scales[kSubBlocks];

    float allWeights[QK_K];
    for (int j = 0; j < kSubBlocks; ++j) {
        const float* xs = x + kSub * j;
        float sumX2 = 0.0f;
        for (int l = 0; l < kSub; ++l)
            sumX2 += xs[l] * xs[l];
        const float averageX = std::sqrt(sumX2 / 32.0f);
        for (int l = 0; l < kSub; ++l)
            allWeights[kSub * j + l] = averageX + fabsOf(xs[l]);
    }
    if (const AsymmetricSearch8Fn search8 = asymmetricSearch8()) {
        static_assert(kSubBlocks == kSearchLanes);
        float xi[QK_K];
        float wi[QK_K];
        std::uint8_t li[QK_K];
        interleaveGroups(x, kSub, kSubBlocks, xi);
        interleaveGroups(allWeights, kSub, kSubBlocks, wi);
        search8(kSub, p.nmax, xi, wi, li, scales, mins, p.rmin, p.rdelta, p.nstep, false);
        for (int j = 0; j < kSubBlocks; ++j)
            for (int l = 0; l < kSub; ++l)
                L[kSub * j + l] = li[kSearchLanes * l + j];
    } else {
        for (int j = 0; j < kSubBlocks; ++j)
            scales[j] = makeAsymmetricLevels(kSub, p.nmax, x + kSub * j, allWeights + kSub * j, L + kSub * j, &mins[j], scratch,
                                             p.rmin, p.rdelta, p.nstep, false);
    }
    float maxScale = 0.0f;
    float maxMin = 0.0f;
    for (int j = 0; j < kSubBlocks; ++j) {
        if (scales[j] > maxScale)
            maxScale = scales[j];
        if (mins[j] > maxMin)
            maxMin = mins[j];
    }

    const float inverseScale = maxScale > 0.0f ? 63.0f / maxScale : 0.0f;
    const float inverseMin = maxMin > 0.0f ? 63.0f / maxMin : 0.0f;
    std::uint8_t ls[kSubBlocks];
    std::uint8_t lm[kSubBlocks];
    for (int j = 0; j < kSubBlocks; ++j) {
        ls[j] = std::min<std::uint8_t>(63, static_cast<std::uint8_t>(nearestInt(inverseScale * scales[j])));
        lm[j] = std::min<std::uint8_t>(63, static_cast<std::uint8_t>(nearestInt(inverseMin * mins[j])));
    }
    packScalesMins(ls, lm, block + B::scales);
    storeF16(block + B::d, maxScale / 63.0f);
    storeF16(block + B::dmin, maxMin / 63.0f);

    const float dAll = loadHalf(block + B::d);
    const float minAll = loadHalf(block + B::dmin);
    for (int j = 0; j < kSubBlocks; ++j) {
        std::uint8_t scale = 0;
        std::uint8_t min = 0;
        unpackScaleMin(j, block + B::scales, &scale, &min);
        const float d = dAll * float(scale);
        if (d == 0.0f)
            continue;
        const float dm = minAll * float(min);
        for (int ii = 0; ii < kSub; ++ii)
            L[kSub * j + ii] = static_cast<std::uint8_t>(std::clamp(nearestInt((x[kSub * j + ii] + dm) / d), 0, p.nmax));
    }
}

}  // namespace

// Q4_K: 4-bit levels; each 64-element chunk uses 32 qs bytes (first 32 in the low nibbles).
void quantizeQ4_K(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q4_K;
    std::uint8_t L[QK_K];
    for (std::size_t b = 0; b < blockCount; ++b, x += QK_K, dst += B::bytes) {
        quantizeSuperBlock(x, dst, L, {15, -1.0f, 0.1f, 20});
        std::uint8_t* q = dst + B::qs;
        for (int j = 0; j < QK_K; j += 64, q += 32)
            for (int l = 0; l < 32; ++l)
                q[l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    }
}

// Q5_K: as Q4_K with 5-bit levels; the 5th bit of element l of chunk c is bit 2c (first half)
// or 2c + 1 (second half) of qh[l].
void quantizeQ5_K(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q5_K;
    std::uint8_t L[QK_K];
    for (std::size_t b = 0; b < blockCount; ++b, x += QK_K, dst += B::bytes) {
        quantizeSuperBlock(x, dst, L, {31, -0.5f, 0.1f, 15});
        std::uint8_t* qh = dst + B::qh;
        std::uint8_t* ql = dst + B::qs;
        std::fill(qh, qh + QK_K / 8, std::uint8_t{0});
        unsigned m1 = 1;
        unsigned m2 = 2;
        for (int n = 0; n < QK_K; n += 64, m1 <<= 2, m2 <<= 2, ql += 32) {
            for (int j = 0; j < 32; ++j) {
                int l1 = L[n + j];
                if (l1 > 15) {
                    l1 -= 16;
                    qh[j] = static_cast<std::uint8_t>(qh[j] | m1);
                }
                int l2 = L[n + j + 32];
                if (l2 > 15) {
                    l2 -= 16;
                    qh[j] = static_cast<std::uint8_t>(qh[j] | m2);
                }
                ql[j] = static_cast<std::uint8_t>(l1 | (l2 << 4));
            }
        }
    }
}

}  // namespace gguf::quantize
