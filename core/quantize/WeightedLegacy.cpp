// Importance-weighted legacy 32-element blocks (ggml's quantize_row_q4_0_impl ... q5_1_impl).
// Each element's weight is its importance times sqrt(row variance + x^2); the block's scale
// (and min) come from a weighted least-squares search instead of the block's extremes, and the
// levels are kept as the search chose them (no re-rounding against the f16 scale).

#include "core/kernels/BlockLayouts.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/WeightedQuantizers.h"
#include "core/quantize/AsymmetricSearch8.h"
#include "core/quantize/WeightedSearch.h"
#include "core/quantize/WeightedSearch8.h"

#include <cmath>

namespace gguf::quantize {

namespace {

constexpr int kBlock = 32;

// sum(x^2) / n over the whole row, accumulated in order as ggml does.
float rowVariance(const float* x, std::int64_t n)
{
    float sumX2 = 0.0f;
    for (std::int64_t j = 0; j < n; ++j)
        sumX2 += x[j] * x[j];
    return sumX2 / float(n);
}

void blockWeights(const float* xb, const float* qw, float sigma2, float* weight)
{
    for (int j = 0; j < kBlock; ++j)
        weight[j] = qw[j] * std::sqrt(sigma2 + xb[j] * xb[j]);
}

template <typename Level>
void packNibbles(const Level* L, std::uint8_t* qs)
{
    for (int j = 0; j < kBlock / 2; ++j)
        qs[j] = static_cast<std::uint8_t>((std::uint8_t(L[j]) & 0x0F) | ((std::uint8_t(L[j + 16]) & 0x0F) << 4));
}

template <typename Level>
void packFifthBits(const Level* L, std::uint8_t* qhBytes)
{
    std::uint32_t qh = 0;
    for (int j = 0; j < kBlock / 2; ++j) {
        qh |= ((std::uint8_t(L[j]) & 0x10u) >> 4) << j;
        qh |= ((std::uint8_t(L[j + 16]) & 0x10u) >> 4) << (j + kBlock / 2);
    }
    storeU32(qhBytes, qh);
}

// Symmetric types: Q4_0 (nmax 8) and Q5_0 (nmax 16); eight blocks side by side with AVX2.
template <typename B, int nmax>
void packSymmetric(const std::int8_t* L, float d, std::uint8_t* dst)
{
    storeF16(dst + B::d, d);
    packNibbles(L, dst + B::qs);
    if constexpr (nmax == 16)
        packFifthBits(L, dst + blocks::Q5_0::qh);
}

template <typename B, int nmax>
void symmetricRow(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    const float sigma2 = rowVariance(x, n);
    float weight[kBlock * kSearchLanes];
    std::int8_t L[kBlock];
    const std::int64_t blocks = n / kBlock;
    std::int64_t ib = 0;
    if (const WeightedSymmetricSearch8Fn search8 = weightedSymmetricSearch8()) {
        float xi[kBlock * kSearchLanes];
        float wi[kBlock * kSearchLanes];
        std::int8_t li[kBlock * kSearchLanes];
        float scales[kSearchLanes];
        for (; ib + kSearchLanes <= blocks; ib += kSearchLanes) {
            const float* xb = x + kBlock * ib;
            for (int g = 0; g < kSearchLanes; ++g)
                blockWeights(xb + kBlock * g, qw + kBlock * (ib + g), sigma2, weight + kBlock * g);
            interleaveGroups(xb, kBlock, kSearchLanes, xi);
            interleaveGroups(weight, kBlock, kSearchLanes, wi);
            search8(kBlock, nmax, xi, wi, li, scales);
            for (int g = 0; g < kSearchLanes; ++g) {
                for (int l = 0; l < kBlock; ++l)
                    L[l] = li[kSearchLanes * l + g];
                packSymmetric<B, nmax>(L, scales[g], dst + B::bytes * (ib + g));
            }
        }
    }
    for (; ib < blocks; ++ib) {
        const float* xb = x + kBlock * ib;
        blockWeights(xb, qw + kBlock * ib, sigma2, weight);
        packSymmetric<B, nmax>(L, makeWeightedSymmetricLevels(kBlock, nmax, xb, weight, L), dst + B::bytes * ib);
    }
}

// Asymmetric types: Q4_1 (nmax 15) and Q5_1 (nmax 31). With AVX2, eight blocks search side by
// side (WeightedSearch8.h), bit-identical to one block at a time.
template <typename B, int nmax>
void packAsymmetric(const std::uint8_t* L, float d, float min, std::uint8_t* dst)
{
    storeF16(dst + B::d, d);
    storeF16(dst + B::m, -min);
    packNibbles(L, dst + B::qs);
    if constexpr (nmax == 31)
        packFifthBits(L, dst + blocks::Q5_1::qh);
}

template <typename B, int nmax>
void asymmetricRow(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    const float sigma2 = rowVariance(x, n);
    float weight[kBlock * kSearchLanes];
    std::uint8_t L[kBlock];
    std::uint8_t scratch[kBlock];
    const std::int64_t blocks = n / kBlock;
    std::int64_t ib = 0;
    if (const WeightedAsymmetricSearch8Fn search8 = weightedAsymmetricSearch8()) {
        float xi[kBlock * kSearchLanes];
        float wi[kBlock * kSearchLanes];
        std::uint8_t li[kBlock * kSearchLanes];
        float scales[kSearchLanes];
        float mins[kSearchLanes];
        for (; ib + kSearchLanes <= blocks; ib += kSearchLanes) {
            const float* xb = x + kBlock * ib;
            for (int g = 0; g < kSearchLanes; ++g)
                blockWeights(xb + kBlock * g, qw + kBlock * (ib + g), sigma2, weight + kBlock * g);
            interleaveGroups(xb, kBlock, kSearchLanes, xi);
            interleaveGroups(weight, kBlock, kSearchLanes, wi);
            search8(kBlock, nmax, xi, wi, li, scales, mins, -0.9f, 0.05f, 36);
            for (int g = 0; g < kSearchLanes; ++g) {
                for (int l = 0; l < kBlock; ++l)
                    L[l] = li[kSearchLanes * l + g];
                packAsymmetric<B, nmax>(L, scales[g], mins[g], dst + B::bytes * (ib + g));
            }
        }
    }
    for (; ib < blocks; ++ib) {
        const float* xb = x + kBlock * ib;
        blockWeights(xb, qw + kBlock * ib, sigma2, weight);
        float min = 0.0f;
        const float d = makeWeightedAsymmetricLevels(kBlock, nmax, xb, weight, L, &min, scratch, -0.9f, 0.05f, 36);
        packAsymmetric<B, nmax>(L, d, min, dst + B::bytes * ib);
    }
}

}  // namespace

void quantizeRowQ4_0Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights)
{
    symmetricRow<blocks::Q4_0, 8>(x, dst, n, weights);
}

void quantizeRowQ5_0Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights)
{
    symmetricRow<blocks::Q5_0, 16>(x, dst, n, weights);
}

void quantizeRowQ4_1Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights)
{
    asymmetricRow<blocks::Q4_1, 15>(x, dst, n, weights);
}

void quantizeRowQ5_1Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights)
{
    asymmetricRow<blocks::Q5_1, 31>(x, dst, n, weights);
}

}  // namespace gguf::quantize
