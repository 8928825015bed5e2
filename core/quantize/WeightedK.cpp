// Importance-weighted K-quants (ggml's quantize_row_q2_K_impl ... q6_K_impl). Sub-block fits are
// weighted by importance * sqrt(sigma2 + x^2) (Q6_K: by the importance alone), and the sub-block
// scales and mins are themselves quantized by a weighted search (make_qp_quants / make_qx_quants
// over the sub-blocks' weight sums) instead of against their maximum.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/HalfFloat.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/WeightedQuantizers.h"
#include "core/quantize/AsymmetricSearch8.h"
#include "core/quantize/Q3KAvx2.h"
#include "core/quantize/WeightedSearch.h"
#include "core/quantize/WeightedSearch8.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);

float loadHalf(const std::uint8_t* p)
{
    return f16ToF32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
}

float superBlockSumSquares(const float* x)
{
    float sum = 0.0f;
    for (int j = 0; j < QK_K; ++j)
        sum += x[j] * x[j];
    return sum;
}

void pack2Bit(const std::uint8_t* L, std::uint8_t* qs)
{
    for (int j = 0; j < QK_K; j += 128)
        for (int l = 0; l < 32; ++l)
            qs[j / 4 + l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

// Q4_K / Q5_K scale bytes (the inverse of get_scale_min_k4).
void packScalesMins(const std::uint8_t* ls, const std::uint8_t* lm, std::uint8_t* q)
{
    for (int j = 0; j < 8; ++j) {
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

// Q4_K (nmax 15) and Q5_K (nmax 31): eight 32-element sub-blocks, 6-bit scale and min each.
// Fills d, dmin, scales and the levels L[256].
void weightedSuperBlock32(const float* x, const float* qw, int nmax, std::uint8_t* block, std::uint8_t* L)
{
    using B = blocks::Q4_K;
    static_assert(B::d == blocks::Q5_K::d && B::dmin == blocks::Q5_K::dmin && B::scales == blocks::Q5_K::scales);
    std::uint8_t scratch[32];
    float weights[32];
    float sw[8];
    float mins[8];
    float scales[8];
    const float sigma2 = 2.0f * superBlockSumSquares(x) / float(QK_K);
    float allWeights[QK_K];
    for (int j = 0; j < 8; ++j) {
        for (int l = 0; l < 32; ++l)
            allWeights[32 * j + l] = qw[32 * j + l] * std::sqrt(sigma2 + x[32 * j + l] * x[32 * j + l]);
        float sumw = 0.0f;
        for (int l = 0; l < 32; ++l)
            sumw += allWeights[32 * j + l];
        sw[j] = sumw;
    }
    if (const WeightedAsymmetricSearch8Fn search8 = weightedAsymmetricSearch8()) {
        float xi[QK_K];
        float wi[QK_K];
        std::uint8_t li[QK_K];
        interleaveGroups(x, 32, 8, xi);
        interleaveGroups(allWeights, 32, 8, wi);
        search8(32, nmax, xi, wi, li, scales, mins, -0.9f, 0.05f, 36);
        for (int j = 0; j < 8; ++j)
            for (int l = 0; l < 32; ++l)
                L[32 * j + l] = li[kSearchLanes * l + j];
    } else {
        for (int j = 0; j < 8; ++j) {
            std::memcpy(weights, allWeights + 32 * j, sizeof weights);
            scales[j] = makeWeightedAsymmetricLevels(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], scratch, -0.9f, 0.05f, 36);
        }
    }
    std::uint8_t ls[8];
    std::uint8_t lm[8];
    const float dBlock = makePositiveLevels(8, 63, scales, sw, ls);
    const float mBlock = makePositiveLevels(8, 63, mins, sw, lm);
    for (int j = 0; j < 8; ++j) {
        ls[j] = std::min<std::uint8_t>(63, ls[j]);
        lm[j] = std::min<std::uint8_t>(63, lm[j]);
    }
    packScalesMins(ls, lm, block + B::scales);
    storeF16(block + B::d, dBlock);
    storeF16(block + B::dmin, mBlock);

    const float dAll = loadHalf(block + B::d);
    const float minAll = loadHalf(block + B::dmin);
    for (int j = 0; j < 8; ++j) {
        std::uint8_t sc = 0;
        std::uint8_t m = 0;
        unpackScaleMin(j, block + B::scales, &sc, &m);
        const float d = dAll * float(sc);
        if (d == 0.0f)
            continue;
        const float dm = minAll * float(m);
        for (int ii = 0; ii < 32; ++ii)
            L[32 * j + ii] = static_cast<std::uint8_t>(std::clamp(nearestInt((x[32 * j + ii] + dm) / d), 0, nmax));
    }
}

// The symmetric fits of a super-block's sixteen 16-element sub-blocks (Q3_K, Q6_K): two sets of
// eight lanes with AVX2, else one at a time. `scratch` holds 16 weights.
void symmetricSubBlocks(const float* x, const float* weights, int nmax, std::int8_t* L, float* scales, float* scratch)
{
    if (const WeightedSymmetricSearch8Fn search8 = weightedSymmetricSearch8()) {
        for (int half = 0; half < 16; half += kSearchLanes) {
            float xi[16 * kSearchLanes];
            float wi[16 * kSearchLanes];
            std::int8_t li[16 * kSearchLanes];
            interleaveGroups(x + 16 * half, 16, kSearchLanes, xi);
            interleaveGroups(weights + 16 * half, 16, kSearchLanes, wi);
            search8(16, nmax, xi, wi, li, scales + half);
            for (int g = 0; g < kSearchLanes; ++g)
                for (int l = 0; l < 16; ++l)
                    L[16 * (half + g) + l] = li[kSearchLanes * l + g];
        }
        return;
    }
    for (int j = 0; j < 16; ++j) {
        std::memcpy(scratch, weights + 16 * j, 16 * sizeof(float));
        scales[j] = makeWeightedSymmetricLevels(16, nmax, x + 16 * j, scratch, L + 16 * j);
    }
}

}  // namespace

void quantizeRowQ2_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::Q2_K;
    std::uint8_t L[QK_K];
    std::uint8_t scratch[16];
    float mins[16];
    float scales[16];
    float sw[16];
    float weight[16];
    std::uint8_t Ls[16];
    std::uint8_t Lm[16];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K, qw += QK_K, dst += B::bytes) {
        const float sigma2 = superBlockSumSquares(x) / float(QK_K);
        float allWeights[QK_K];
        for (int j = 0; j < 16; ++j) {
            for (int l = 0; l < 16; ++l)
                allWeights[16 * j + l] = qw[16 * j + l] * std::sqrt(sigma2 + x[16 * j + l] * x[16 * j + l]);
            float sumw = 0.0f;
            for (int l = 0; l < 16; ++l)
                sumw += allWeights[16 * j + l];
            sw[j] = sumw;
        }
        if (const WeightedAsymmetricSearch8Fn search8 = weightedAsymmetricSearch8()) {
            for (int half = 0; half < 16; half += kSearchLanes) {  // two sets of 8 sub-blocks
                float xi[16 * kSearchLanes];
                float wi[16 * kSearchLanes];
                std::uint8_t li[16 * kSearchLanes];
                interleaveGroups(x + 16 * half, 16, kSearchLanes, xi);
                interleaveGroups(allWeights + 16 * half, 16, kSearchLanes, wi);
                search8(16, 3, xi, wi, li, scales + half, mins + half, -0.9f, 0.05f, 36);
                for (int g = 0; g < kSearchLanes; ++g)
                    for (int l = 0; l < 16; ++l)
                        L[16 * (half + g) + l] = li[kSearchLanes * l + g];
            }
        } else {
            for (int j = 0; j < 16; ++j) {
                std::memcpy(weight, allWeights + 16 * j, sizeof weight);
                scales[j] = makeWeightedAsymmetricLevels(16, 3, x + 16 * j, weight, L + 16 * j, &mins[j], scratch, -0.9f, 0.05f, 36);
            }
        }
        const float dm = makePositiveLevels(16, 15, scales, sw, Ls);
        const float mm = makePositiveLevels(16, 15, mins, sw, Lm);
        storeF16(dst + B::d, dm);
        storeF16(dst + B::dmin, mm);
        const float dAll = loadHalf(dst + B::d);
        const float minAll = loadHalf(dst + B::dmin);
        std::uint8_t* sc = dst + B::scales;
        for (int j = 0; j < 16; ++j)
            sc[j] = static_cast<std::uint8_t>(Ls[j] | (Lm[j] << 4));
        for (int j = 0; j < 16; ++j) {
            const float d = dAll * float(sc[j] & 0xF);
            if (d == 0.0f)
                continue;
            const float m = minAll * float(sc[j] >> 4);
            for (int ii = 0; ii < 16; ++ii)
                L[16 * j + ii] = static_cast<std::uint8_t>(std::clamp(nearestInt((x[16 * j + ii] + m) / d), 0, 3));
        }
        pack2Bit(L, dst + B::qs);
    }
}

void quantizeRowQ3_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::Q3_K;
    std::int8_t L[QK_K];
    float scales[16];
    float weight[16];
    float sw[16];
    std::int8_t Ls[16];
    const Q3KLevelsFn fastLevels = q3KLevelsAvx2();
    const Q3KLevelsFn levels = fastLevels ? fastLevels : q3KLevelsScalar;
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K, qw += QK_K, dst += B::bytes) {
        const float sigma2 = 2.0f * superBlockSumSquares(x) / float(QK_K);
        float allWeights[QK_K];
        for (int j = 0; j < 16; ++j) {
            for (int l = 0; l < 16; ++l)
                allWeights[16 * j + l] = qw[16 * j + l] * std::sqrt(sigma2 + x[16 * j + l] * x[16 * j + l]);
            float sumw = 0.0f;
            for (int l = 0; l < 16; ++l)
                sumw += allWeights[16 * j + l];
            sw[j] = sumw;
        }
        symmetricSubBlocks(x, allWeights, 4, L, scales, weight);
        std::uint8_t* sc = dst + B::scales;
        std::fill(sc, sc + 12, std::uint8_t{0});
        const float dBlock = makeWeightedSymmetricLevels(16, 32, scales, sw, Ls);
        for (int j = 0; j < 16; ++j) {
            int l = Ls[j];
            if (j < 8)
                sc[j] = static_cast<std::uint8_t>(l & 0xF);
            else
                sc[j - 8] = static_cast<std::uint8_t>(sc[j - 8] | ((l & 0xF) << 4));
            l >>= 4;
            sc[j % 4 + 8] = static_cast<std::uint8_t>(sc[j % 4 + 8] | (l << (2 * (j / 4))));
        }
        storeF16(dst + B::d, dBlock);

        // The same last step as the plain Q3_K (QuantizeK16.cpp), in AVX2 when the CPU has it.
        const float dAll = loadHalf(dst + B::d);
        float subScale[16];
        for (int j = 0; j < 16; ++j) {
            const int low = j < 8 ? (sc[j] & 0xF) : (sc[j - 8] >> 4);
            const std::int8_t scale = static_cast<std::int8_t>((low | (((sc[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32);
            subScale[j] = dAll * float(scale);
        }
        levels(x, subScale, L, dst + B::hmask, dst + B::qs);
    }
}

void quantizeRowQ4_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::Q4_K;
    std::uint8_t L[QK_K];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K, qw += QK_K, dst += B::bytes) {
        weightedSuperBlock32(x, qw, 15, dst, L);
        std::uint8_t* q = dst + B::qs;
        for (int j = 0; j < QK_K; j += 64, q += 32)
            for (int l = 0; l < 32; ++l)
                q[l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    }
}

void quantizeRowQ5_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::Q5_K;
    std::uint8_t L[QK_K];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K, qw += QK_K, dst += B::bytes) {
        weightedSuperBlock32(x, qw, 31, dst, L);
        std::uint8_t* qh = dst + B::qh;
        std::uint8_t* ql = dst + B::qs;
        std::memset(qh, 0, QK_K / 8);
        std::uint8_t m1 = 1;
        std::uint8_t m2 = 2;
        for (int nn = 0; nn < QK_K; nn += 64, ql += 32) {
            for (int j = 0; j < 32; ++j) {
                int l1 = L[nn + j];
                if (l1 > 15) {
                    l1 -= 16;
                    qh[j] = static_cast<std::uint8_t>(qh[j] | m1);
                }
                int l2 = L[nn + j + 32];
                if (l2 > 15) {
                    l2 -= 16;
                    qh[j] = static_cast<std::uint8_t>(qh[j] | m2);
                }
                ql[j] = static_cast<std::uint8_t>(l1 | (l2 << 4));
            }
            m1 = static_cast<std::uint8_t>(m1 << 2);
            m2 = static_cast<std::uint8_t>(m2 << 2);
        }
    }
}

void quantizeRowQ6_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::Q6_K;
    std::int8_t L[QK_K];
    float scales[16];
    for (std::int64_t i = 0; i < n / QK_K; ++i, x += QK_K, qw += QK_K, dst += B::bytes) {
        float maxScale = 0.0f;
        float maxAbsScale = 0.0f;
        float subWeight[16];
        symmetricSubBlocks(x, qw, 32, L, scales, subWeight);
        for (int ib = 0; ib < 16; ++ib) {
            const float absScale = fabsOf(scales[ib]);
            if (absScale > maxAbsScale) {
                maxAbsScale = absScale;
                maxScale = scales[ib];
            }
        }
        if (maxAbsScale < 1e-15f) {
            std::memset(dst, 0, B::bytes);
            continue;
        }
        const float iscale = -128.0f / maxScale;
        storeF16(dst + B::d, 1.0f / iscale);
        std::int8_t* sc = reinterpret_cast<std::int8_t*>(dst + B::scales);
        for (int ib = 0; ib < 16; ++ib)
            sc[ib] = static_cast<std::int8_t>(std::min(127, nearestInt(iscale * scales[ib])));
        const float dAll = loadHalf(dst + B::d);
        for (int j = 0; j < 16; ++j) {
            const float d = dAll * float(sc[j]);
            if (d == 0.0f)
                continue;
            for (int ii = 0; ii < 16; ++ii)
                L[16 * j + ii] = static_cast<std::int8_t>(std::clamp(nearestInt(x[16 * j + ii] / d), -32, 31) + 32);
        }
        std::uint8_t* ql = dst + B::ql;
        std::uint8_t* qh = dst + B::qh;
        for (int j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
            for (int l = 0; l < 32; ++l) {
                ql[l] = static_cast<std::uint8_t>((L[j + l] & 0xF) | ((L[j + l + 64] & 0xF) << 4));
                ql[l + 32] = static_cast<std::uint8_t>((L[j + l + 32] & 0xF) | ((L[j + l + 96] & 0xF) << 4));
                qh[l] = static_cast<std::uint8_t>((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4)
                                                  | ((L[j + l + 96] >> 4) << 6));
            }
        }
    }
}

}  // namespace gguf::quantize
