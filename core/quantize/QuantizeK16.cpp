// K-quants with sixteen 16-element sub-blocks per 256-element super-block: Q2_K (scale + min per
// sub-block, 4-bit each), Q3_K and Q6_K (signed scales). Each sub-block's scale comes from a
// search in ScaleSearch.cpp; the scales are then quantized against the super-block's largest one,
// and every element is re-rounded against the scale as it will be decoded (f16 d times the
// quantized scale), as ggml does.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/KernelIsa.h"
#include "core/quantize/AsymmetricSearch8.h"
#include "core/quantize/Q3KAvx2.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/ScaleSearch.h"

#include <algorithm>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);
constexpr int kSub = 16;
constexpr int kSubBlocks = QK_K / kSub;

float loadHalf(const std::uint8_t* p)
{
    return f16ToF32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
}

// 2-bit levels as Q2_K and Q3_K store them: each 128-element half uses 32 bytes, and its four
// 32-element groups are the bit pairs at shifts 0, 2, 4, 6.
void pack2Bit(const std::uint8_t* L, std::uint8_t* qs)
{
    for (int j = 0; j < QK_K; j += 128) {
        for (int l = 0; l < 32; ++l) {
            qs[j / 4 + l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4)
                                                      | (L[j + l + 96] << 6));
        }
    }
}

}  // namespace

// Q2_K: per sub-block an asymmetric 2-bit fit (absolute-error search weighted by |x|); scales and
// mins quantized to 4 bits against their maxima, d = max_scale / 15, dmin = max_min / 15.
void quantizeQ2_K(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q2_K;
    std::uint8_t L[QK_K];
    std::uint8_t scratch[kSub];
    float weights[kSub];
    float mins[kSubBlocks];
    float scales[kSubBlocks];
    constexpr float q4scale = 15.0f;
    const AsymmetricSearch8Fn search8 = asymmetricSearch8();
    static_assert(kSubBlocks == 2 * kSearchLanes);

    for (std::size_t b = 0; b < blockCount; ++b, x += QK_K, dst += B::bytes) {
        float maxScale = 0.0f;
        float maxMin = 0.0f;
        if (search8) {
            // Two sets of eight sub-blocks, one sub-block per lane (AsymmetricSearch8.h).
            for (int half = 0; half < kSubBlocks; half += kSearchLanes) {
                const float* xs = x + kSub * half;
                float absX[kSub * kSearchLanes];
                for (int i = 0; i < kSub * kSearchLanes; ++i)
                    absX[i] = fabsOf(xs[i]);
                float xi[kSub * kSearchLanes];
                float wi[kSub * kSearchLanes];
                std::uint8_t li[kSub * kSearchLanes];
                interleaveGroups(xs, kSub, kSearchLanes, xi);
                interleaveGroups(absX, kSub, kSearchLanes, wi);
                search8(kSub, 3, xi, wi, li, scales + half, mins + half, -0.5f, 0.1f, 15, true);
                for (int g = 0; g < kSearchLanes; ++g)
                    for (int l = 0; l < kSub; ++l)
                        L[kSub * (half + g) + l] = li[kSearchLanes * l + g];
            }
        }
        for (int j = 0; j < kSubBlocks; ++j) {
            if (!search8) {
                for (int l = 0; l < kSub; ++l)
                    weights[l] = fabsOf(x[kSub * j + l]);
                scales[j] = makeAsymmetricLevels(kSub, 3, x + kSub * j, weights, L + kSub * j, &mins[j], scratch, -0.5f, 0.1f, 15, true);
            }
            if (scales[j] > maxScale)
                maxScale = scales[j];
            if (mins[j] > maxMin)
                maxMin = mins[j];
        }

        std::uint8_t* sc = dst + B::scales;
        if (maxScale > 0.0f) {
            const float iscale = q4scale / maxScale;
            for (int j = 0; j < kSubBlocks; ++j)
                sc[j] = static_cast<std::uint8_t>(nearestInt(iscale * scales[j]));
            storeF16(dst + B::d, maxScale / q4scale);
        } else {
            std::fill(sc, sc + kSubBlocks, std::uint8_t{0});
            storeF16(dst + B::d, 0.0f);
        }
        if (maxMin > 0.0f) {
            const float iscale = q4scale / maxMin;
            for (int j = 0; j < kSubBlocks; ++j)
                sc[j] = static_cast<std::uint8_t>(sc[j] | (static_cast<unsigned>(nearestInt(iscale * mins[j])) << 4));
            storeF16(dst + B::dmin, maxMin / q4scale);
        } else {
            storeF16(dst + B::dmin, 0.0f);
        }

        const float dAll = loadHalf(dst + B::d);
        const float minAll = loadHalf(dst + B::dmin);
        for (int j = 0; j < kSubBlocks; ++j) {
            const float d = dAll * float(sc[j] & 0xF);
            if (d == 0.0f)
                continue;
            const float dm = minAll * float(sc[j] >> 4);
            for (int ii = 0; ii < kSub; ++ii)
                L[kSub * j + ii] = static_cast<std::uint8_t>(std::clamp(nearestInt((x[kSub * j + ii] + dm) / d), 0, 3));
        }
        pack2Bit(L, dst + B::qs);
    }
}

// Q3_K: per sub-block a refined symmetric 3-bit fit; the signed scales quantized to 6 bits
// (offset 32, low nibbles in bytes 0-7, top 2 bits in bytes 8-11), d = -max_scale / 32.
// The third bit of each level goes to hmask: element j sets bit j / 32 of hmask[j % 32].
void quantizeQ3_K(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q3_K;
    std::int8_t L[QK_K];
    float scales[kSubBlocks];
    const SymmetricSearch8Fn refined8 = refinedSymmetricSearch8();
    const Q3KLevelsFn fastLevels = q3KLevelsAvx2();
    const Q3KLevelsFn levels = fastLevels ? fastLevels : q3KLevelsScalar;

    for (std::size_t b = 0; b < blockCount; ++b, x += QK_K, dst += B::bytes) {
        // The next block's 1 KiB, asked for now: a block takes long enough for it to arrive, and
        // without it the first reads of each block wait on memory (a hint; never faults).
        for (int k = 0; k < QK_K; k += 16)
            __builtin_prefetch(x + QK_K + k);
        float maxScale = 0.0f;
        float amax = 0.0f;
        if (refined8) {
            for (int half = 0; half < kSubBlocks; half += kSearchLanes) {
                float xi[kSub * kSearchLanes];
                std::int8_t li[kSub * kSearchLanes];
                interleaveGroups(x + kSub * half, kSub, kSearchLanes, xi);
                refined8(kSub, 4, xi, li, scales + half);
                for (int g = 0; g < kSearchLanes; ++g)
                    for (int l = 0; l < kSub; ++l)
                        L[kSub * (half + g) + l] = li[kSearchLanes * l + g];
            }
        }
        for (int j = 0; j < kSubBlocks; ++j) {
            if (!refined8)
                scales[j] = makeRefinedSymmetricLevels(kSub, 4, x + kSub * j, L + kSub * j);
            const float scale = fabsOf(scales[j]);
            if (scale > amax) {
                amax = scale;
                maxScale = scales[j];
            }
        }

        std::uint8_t* sc = dst + B::scales;
        std::fill(sc, sc + 12, std::uint8_t{0});
        if (maxScale != 0.0f) {
            const float iscale = -32.0f / maxScale;
            for (int j = 0; j < kSubBlocks; ++j) {
                const std::int8_t rounded = static_cast<std::int8_t>(nearestInt(iscale * scales[j]));
                const int l = std::max(-32, std::min(31, int(rounded))) + 32;
                if (j < 8)
                    sc[j] = static_cast<std::uint8_t>(l & 0xF);
                else
                    sc[j - 8] = static_cast<std::uint8_t>(sc[j - 8] | ((l & 0xF) << 4));
                sc[j % 4 + 8] = static_cast<std::uint8_t>(sc[j % 4 + 8] | ((l >> 4) << (2 * (j / 4))));
            }
            storeF16(dst + B::d, 1.0f / iscale);
        } else {
            storeF16(dst + B::d, 0.0f);
        }

        const float dAll = loadHalf(dst + B::d);
        float subScale[kSubBlocks];
        for (int j = 0; j < kSubBlocks; ++j) {
            const int low = j < 8 ? (sc[j] & 0xF) : (sc[j - 8] >> 4);
            const int scale = (low | (((sc[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
            subScale[j] = dAll * float(scale);
        }
        levels(x, subScale, L, dst + B::hmask, dst + B::qs);
    }
}

void q3KLevelsScalar(const float* x, const float* subScale, std::int8_t* L, std::uint8_t* hmask, std::uint8_t* qs)
{
    for (int j = 0; j < kSubBlocks; ++j) {
        const float d = subScale[j];
        if (d == 0.0f)
            continue;
        for (int ii = 0; ii < kSub; ++ii)
            L[kSub * j + ii] = static_cast<std::int8_t>(std::clamp(nearestInt(x[kSub * j + ii] / d), -4, 3) + 4);
    }
    std::fill(hmask, hmask + QK_K / 8, std::uint8_t{0});
    std::uint8_t levels[QK_K];
    for (int j = 0; j < QK_K; ++j) {
        int level = L[j];
        if (level > 3) {
            hmask[j % (QK_K / 8)] = static_cast<std::uint8_t>(hmask[j % (QK_K / 8)] | (1u << (j / (QK_K / 8))));
            level -= 4;
        }
        levels[j] = static_cast<std::uint8_t>(level);
    }
    pack2Bit(levels, qs);
}

#if GGUFX_X86_KERNELS
Q3KLevelsFn q3KLevelsAvx2Kernel();  // Q3KAvx2.cpp, built with -mavx2
#endif

Q3KLevelsFn q3KLevelsAvx2()
{
#if GGUFX_X86_KERNELS
    static const Q3KLevelsFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? q3KLevelsAvx2Kernel() : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

// Q6_K: per sub-block a symmetric 6-bit fit; the signed scales quantized to int8 against the
// largest one (d = -max_scale / 128). Low 4 bits of each level in ql, top 2 bits in qh.
void quantizeQ6_K(const float* x, std::uint8_t* dst, std::size_t blockCount)
{
    using B = blocks::Q6_K;
    std::int8_t L[QK_K];
    float scales[kSubBlocks];
    const SymmetricSearch8Fn symmetric8 = symmetricSearch8();

    for (std::size_t b = 0; b < blockCount; ++b, x += QK_K, dst += B::bytes) {
        float maxScale = 0.0f;
        float maxAbsScale = 0.0f;
        if (symmetric8) {
            for (int half = 0; half < kSubBlocks; half += kSearchLanes) {
                float xi[kSub * kSearchLanes];
                std::int8_t li[kSub * kSearchLanes];
                interleaveGroups(x + kSub * half, kSub, kSearchLanes, xi);
                symmetric8(kSub, 32, xi, li, scales + half);
                for (int g = 0; g < kSearchLanes; ++g)
                    for (int l = 0; l < kSub; ++l)
                        L[kSub * (half + g) + l] = li[kSearchLanes * l + g];
            }
        }
        for (int ib = 0; ib < kSubBlocks; ++ib) {
            if (!symmetric8)
                scales[ib] = makeSymmetricLevels(kSub, 32, x + kSub * ib, L + kSub * ib);
            const float absScale = fabsOf(scales[ib]);
            if (absScale > maxAbsScale) {
                maxAbsScale = absScale;
                maxScale = scales[ib];
            }
        }
        if (maxAbsScale < 1e-15f) {  // an all-zero super-block: every byte zero (d = +0)
            std::memset(dst, 0, B::bytes);
            continue;
        }

        const float iscale = -128.0f / maxScale;
        storeF16(dst + B::d, 1.0f / iscale);
        std::int8_t* sc = reinterpret_cast<std::int8_t*>(dst + B::scales);
        for (int ib = 0; ib < kSubBlocks; ++ib)
            sc[ib] = static_cast<std::int8_t>(std::min(127, nearestInt(iscale * scales[ib])));

        const float dAll = loadHalf(dst + B::d);
        for (int j = 0; j < kSubBlocks; ++j) {
            const float d = dAll * float(sc[j]);
            if (d == 0.0f)
                continue;
            for (int ii = 0; ii < kSub; ++ii)
                L[kSub * j + ii] = static_cast<std::int8_t>(std::clamp(nearestInt(x[kSub * j + ii] / d), -32, 31) + 32);
        }

        std::uint8_t* ql = dst + B::ql;
        std::uint8_t* qh = dst + B::qh;
        for (int j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
            for (int l = 0; l < 32; ++l) {
                const int q1 = L[j + l] & 0xF;
                const int q2 = L[j + l + 32] & 0xF;
                const int q3 = L[j + l + 64] & 0xF;
                const int q4 = L[j + l + 96] & 0xF;
                ql[l] = static_cast<std::uint8_t>(q1 | (q3 << 4));
                ql[l + 32] = static_cast<std::uint8_t>(q2 | (q4 << 4));
                qh[l] = static_cast<std::uint8_t>((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4)
                                                  | ((L[j + l + 96] >> 4) << 6));
            }
        }
    }
}

}  // namespace gguf::quantize
