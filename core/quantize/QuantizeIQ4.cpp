// IQ4_NL and IQ4_XS: 4-bit indices into ggml's 16 non-linear levels (kvalues_iq4nl). Per
// 32-element block a scale search over 15 candidates (ntry 7) picks the best weighted fit
// (weights: importance * sqrt(sigma2 + x^2), or x^2 without importance); IQ4_XS then quantizes
// the eight block scales to 6 bits against the super-block's largest and re-picks the levels.
// This is ggml's quantize_row_iq4_nl_impl as ggml_quantize_chunk calls it (quantize_iq4_nl /
// quantize_iq4_xs), with or without quant_weights.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/KernelIsa.h"
#include "core/quantize/Iq4SearchAvx2.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/WeightedQuantizers.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int kBlock = 32;
constexpr int kTries = 7;
constexpr float kGroupMaxEps = 1e-15f;
const std::int8_t* const kValues = codebooks::kvalues_iq4nl;

// The index of the level nearest x: level i once 2x reaches val[i-1] + val[i] (exact in
// float), found by a branch-free binary search over the 16 sorted levels.
inline int bestIndex(float x)
{
    const float x2 = x + x;
    int idx = 0;
    for (int step = 8; step > 0; step >>= 1) {
        const int j = idx + step;
        idx = (x2 >= float(kValues[j - 1] + kValues[j])) ? j : idx;
    }
    return idx;
}

// One super-block of `superSize` values (32 for IQ4_NL, 256 for IQ4_XS). Returns the f16 bits of
// d; fills scales[] (one per block) and L[superSize]. `tries` is ggml's ntry: 7 from
// ggml_quantize_chunk; -1 from quantize_row_iq4_nl_ref, which starts from the opposite sign
// and searches no further scales.
struct SuperBlockFit {
    float maxScale = 0.0f;
};

static_assert(2 * kTries + 1 == kIq4Trials);

void fitBlocks(const float* x, int superSize, const float* qw, float* scales, std::uint8_t* L, SuperBlockFit& fit, int tries = kTries)
{
    const Iq4TrialSumsFn trialSums = iq4TrialSumsAvx2();
    float sigma2 = 0.0f;
    for (int j = 0; j < superSize; ++j)
        sigma2 += x[j] * x[j];
    sigma2 *= 2.0f / float(superSize);

    float weight[kBlock];
    float amaxScale = 0.0f;
    for (int ib = 0; ib < superSize / kBlock; ++ib) {
        const float* xb = x + ib * kBlock;
        std::uint8_t* Lb = L + ib * kBlock;
        if (qw) {
            for (int j = 0; j < kBlock; ++j)
                weight[j] = qw[ib * kBlock + j] * std::sqrt(sigma2 + xb[j] * xb[j]);
        } else {
            for (int j = 0; j < kBlock; ++j)
                weight[j] = xb[j] * xb[j];
        }
        float amax = 0.0f;
        float max = 0.0f;
        for (int j = 0; j < kBlock; ++j) {
            const float ax = fabsOf(xb[j]);
            if (ax > amax) {
                amax = ax;
                max = xb[j];
            }
        }
        if (amax < kGroupMaxEps) {
            scales[ib] = 0.0f;
            std::memset(Lb, 0, kBlock);
            continue;
        }
        float d = tries > 0 ? -max / float(kValues[0]) : max / float(kValues[0]);
        float id = 1.0f / d;
        float sumqx = 0.0f;
        float sumq2 = 0.0f;
        for (int j = 0; j < kBlock; ++j) {
            const int l = bestIndex(id * xb[j]);
            Lb[j] = static_cast<std::uint8_t>(l);
            const float q = float(kValues[l]);
            sumqx += weight[j] * q * xb[j];
            sumq2 += weight[j] * q * q;
        }
        d = sumq2 > 0.0f ? sumqx / sumq2 : 0.0f;
        float best = d * sumqx;
        // The trials' sums side by side in AVX2 (the same bits), then picked in order.
        float trialQx[kIq4Trials], trialQ2[kIq4Trials];
        const bool vector = tries == kTries && trialSums;
        if (vector)
            trialSums(xb, weight, max, trialQx, trialQ2);
        for (int itry = -tries; itry <= tries; ++itry) {
            if (vector) {
                sumqx = trialQx[itry + kTries];
                sumq2 = trialQ2[itry + kTries];
            } else {
                id = (float(itry) + float(kValues[0])) / max;
                sumqx = 0.0f;
                sumq2 = 0.0f;
                for (int j = 0; j < kBlock; ++j) {
                    const float q = float(kValues[bestIndex(id * xb[j])]);
                    sumqx += weight[j] * q * xb[j];
                    sumq2 += weight[j] * q * q;
                }
            }
            if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
                d = sumqx / sumq2;
                best = d * sumqx;
            }
        }
        scales[ib] = d;
        const float absD = fabsOf(d);
        if (absD > amaxScale) {
            amaxScale = absD;
            fit.maxScale = d;
        }
    }
}

void packLevels(const std::uint8_t* L, int superSize, std::uint8_t* q4)
{
    for (int i = 0; i < superSize / 32; ++i)
        for (int j = 0; j < 16; ++j)
            q4[16 * i + j] = static_cast<std::uint8_t>(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
}

// `tries` as fitBlocks; with none (the reference) the levels of the first fit are kept, not
// picked again for the final scale.
void quantizeNlBlock(const float* x, const float* qw, std::uint8_t* dst, int tries = kTries)
{
    using B = blocks::IQ4_NL;
    float scale = 0.0f;
    std::uint8_t L[kBlock] = {};
    SuperBlockFit fit;
    fitBlocks(x, kBlock, qw, &scale, L, fit, tries);
    storeF16(dst + B::d, scale);
    if (tries > 0) {
        const float id = scale != 0.0f ? 1.0f / scale : 0.0f;
        for (int j = 0; j < kBlock; ++j)
            L[j] = static_cast<std::uint8_t>(bestIndex(id * x[j]));
    }
    packLevels(L, kBlock, dst + B::qs);
}

void quantizeXsBlock(const float* x, const float* qw, std::uint8_t* dst)
{
    using B = blocks::IQ4_XS;
    constexpr int kSuper = static_cast<int>(blocks::QK_K);
    constexpr int nb = kSuper / kBlock;
    float scales[nb];
    std::uint8_t L[kSuper];
    SuperBlockFit fit;
    fitBlocks(x, kSuper, qw, scales, L, fit);

    const float d = -fit.maxScale / 32.0f;
    storeF16(dst + B::d, d);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    std::uint16_t scalesH = 0;
    std::uint8_t* scalesL = dst + B::scalesL;
    for (int ib = 0; ib < nb; ++ib) {
        int l = std::max(-32, std::min(31, nearestInt(id * scales[ib])));
        const float dl = d * float(l);
        const float idl = dl != 0.0f ? 1.0f / dl : 0.0f;
        for (int j = 0; j < kBlock; ++j)
            L[ib * kBlock + j] = static_cast<std::uint8_t>(bestIndex(idl * x[ib * kBlock + j]));
        l += 32;
        const std::uint8_t low = static_cast<std::uint8_t>(l & 0xF);
        const std::uint8_t high = static_cast<std::uint8_t>(l >> 4);
        if (ib % 2 == 0)
            scalesL[ib / 2] = low;
        else
            scalesL[ib / 2] = static_cast<std::uint8_t>(scalesL[ib / 2] | (low << 4));
        scalesH = static_cast<std::uint16_t>(scalesH | (high << (2 * ib)));
    }
    dst[B::scalesH] = static_cast<std::uint8_t>(scalesH & 0xFF);
    dst[B::scalesH + 1] = static_cast<std::uint8_t>(scalesH >> 8);
    packLevels(L, kSuper, dst + B::qs);
}

}  // namespace

#if GGUFX_X86_KERNELS
Iq4TrialSumsFn iq4TrialSumsAvx2Kernel();  // Iq4SearchAvx2.cpp, built with -mavx2
#endif

Iq4TrialSumsFn iq4TrialSumsAvx2()
{
#if GGUFX_X86_KERNELS
    static const Iq4TrialSumsFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? iq4TrialSumsAvx2Kernel() : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

void quantizeRowIQ4_NL(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights)
{
    for (std::int64_t ib = 0; ib < n / kBlock; ++ib)
        quantizeNlBlock(x + kBlock * ib, weights ? weights + kBlock * ib : nullptr, dst + blocks::IQ4_NL::bytes * ib);
}

void quantizeRowIQ4_NLReference(const float* x, std::uint8_t* dst, std::int64_t n)
{
    for (std::int64_t ib = 0; ib < n / kBlock; ++ib)
        quantizeNlBlock(x + kBlock * ib, nullptr, dst + blocks::IQ4_NL::bytes * ib, -1);
}

void quantizeRowIQ4_XS(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights)
{
    constexpr std::int64_t kSuper = static_cast<std::int64_t>(blocks::QK_K);
    for (std::int64_t ib = 0; ib < n / kSuper; ++ib)
        quantizeXsBlock(x + kSuper * ib, weights ? weights + kSuper * ib : nullptr, dst + blocks::IQ4_XS::bytes * ib);
}

void quantizeIQ4_NL(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    quantizeRowIQ4_NL(src, dst, static_cast<std::int64_t>(blockCount * blocks::IQ4_NL::elements), nullptr);
}

void quantizeIQ4_XS(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    quantizeRowIQ4_XS(src, dst, static_cast<std::int64_t>(blockCount * blocks::IQ4_XS::elements), nullptr);
}

}  // namespace gguf::quantize
