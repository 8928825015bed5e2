// Importance-weighted legacy 32-element blocks (ggml's quantize_row_q4_0_impl ... q5_1_impl).
// Each element's weight is its importance times sqrt(row variance + x^2); the block's scale
// (and min) come from a weighted least-squares search instead of the block's extremes, and the
// levels are kept as the search chose them (no re-rounding against the f16 scale).

#include "kernels/BlockLayouts.h"
#include "quantize/QuantizeCommon.h"
#include "quantize/WeightedQuantizers.h"
#include "quantize/WeightedSearch.h"

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

// Symmetric types: Q4_0 (nmax 8) and Q5_0 (nmax 16).
template <typename B, int nmax>
void symmetricRow(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    const float sigma2 = rowVariance(x, n);
    float weight[kBlock];
    std::int8_t L[kBlock];
    for (std::int64_t ib = 0; ib < n / kBlock; ++ib, dst += B::bytes) {
        const float* xb = x + kBlock * ib;
        blockWeights(xb, qw + kBlock * ib, sigma2, weight);
        const float d = makeWeightedSymmetricLevels(kBlock, nmax, xb, weight, L);
        storeF16(dst + B::d, d);
        packNibbles(L, dst + B::qs);
        if constexpr (nmax == 16)
            packFifthBits(L, dst + blocks::Q5_0::qh);
    }
}

// Asymmetric types: Q4_1 (nmax 15) and Q5_1 (nmax 31).
template <typename B, int nmax>
void asymmetricRow(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    const float sigma2 = rowVariance(x, n);
    float weight[kBlock];
    std::uint8_t L[kBlock];
    std::uint8_t scratch[kBlock];
    for (std::int64_t ib = 0; ib < n / kBlock; ++ib, dst += B::bytes) {
        const float* xb = x + kBlock * ib;
        blockWeights(xb, qw + kBlock * ib, sigma2, weight);
        float min = 0.0f;
        const float d = makeWeightedAsymmetricLevels(kBlock, nmax, xb, weight, L, &min, scratch, -0.9f, 0.05f, 36);
        storeF16(dst + B::d, d);
        storeF16(dst + B::m, -min);
        packNibbles(L, dst + B::qs);
        if constexpr (nmax == 31)
            packFifthBits(L, dst + blocks::Q5_1::qh);
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
