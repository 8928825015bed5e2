// IQ3_XXS and IQ3_S (ggml's quantize_row_iq3_xxs_impl / iq3_s_impl): 32-element blocks of
// magnitudes snapped, four at a time, to a grid of allowed patterns (levels 1, 3, ..., 15 times
// the scale; 256 patterns for XXS, 512 for S), signs stored apart (XXS: 7 bits per 8 with even
// parity; S: all 8), one scale per block from a search over 31 (XXS) or 19 (S) candidates.
// Both work with or without importance weights (without: x^2).

#include "core/kernels/BlockLayouts.h"
#include "core/quantize/GridNeighbours.h"
#include "core/quantize/GridTables.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/WeightedQuantizers.h"

#include <cfloat>
#include <cmath>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);
constexpr int kMaxQ = 8;
constexpr int kBlock = 32;

// The map index of 4 levels (3 bits each), as ggml's uint16_t u; out-of-range levels (NaN
// input only) are clamped to an off-grid entry instead of reading past the map.
std::size_t packedIndex(const GridTables& t, const std::int8_t* L)
{
    unsigned u = 0;
    for (int i = 0; i < 4; ++i)
        u |= unsigned(std::uint8_t(L[i])) << (3 * i);
    u &= 0xFFFFu;
    return u < t.map.size() ? u : t.map.size() - 1;
}

// iq3_find_best_neighbour.
int bestNeighbour(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, std::int8_t* L)
{
    const int gridIndex = bestGridNeighbour(t, mapValue, xval, weight, scale, kOddLevelValues);
    std::memcpy(L, &t.gridLevels[std::size_t(gridIndex)], 4);
    return gridIndex;
}

// The levels of 4 values at inverse scale id, and their map index (packedIndex of them: levels
// are 0..7, so the index is below the map size).
unsigned levelsAt(float id, const float* xval, std::int8_t* L)
{
    unsigned u = 0;
    for (int i = 0; i < 4; ++i) {
        int l = nearestInt(0.5f * (id * xval[i] - 1.0f));
        l = l < 0 ? 0 : (l > kMaxQ - 1 ? kMaxQ - 1 : l);
        L[i] = static_cast<std::int8_t>(l);
        u |= unsigned(l) << (3 * i);
    }
    return u;
}

// sum w x q and sum w q^2 for q = 2L + 1, in element order. wx[i] = w x and wq2[8 i + l] = w q q
// for q = 2l + 1 are the products ggml forms first, computed once per block.
void fitOf(const float* wx, const float* wq2, const std::int8_t* L, float* sumqx, float* sumq2)
{
    float qx = 0.0f;
    float q2 = 0.0f;
    for (int i = 0; i < kBlock; ++i) {
        qx += wx[i] * kOddLevelValues[L[i]];
        q2 += wq2[8 * i + L[i]];
    }
    *sumqx = qx;
    *sumq2 = q2;
}

struct Variant {
    bool xxs;  // IQ3_XXS; else IQ3_S
};

// One 32-element block: fills L (levels 0..7, all on the grid), the sign bytes and returns the
// scale (>= 0), or 0 for a block that is all (nearly) zero. gridIndex[8] receives the patterns.
float quantizeBlock(const GridTables& t, bool xxs, const float* xb, const float* qw, float sigma2, std::uint8_t* signs, int* gridIndex)
{
    float weight[kBlock];
    float waux[kBlock];
    float xval[kBlock];
    std::int8_t L[kBlock];
    std::int8_t Laux[kBlock];
    bool onGrid[8];
    bool onGridAux[8];
    if (qw) {
        for (int i = 0; i < kBlock; ++i)
            weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
    } else {
        for (int i = 0; i < kBlock; ++i)
            weight[i] = xb[i] * xb[i];
    }
    for (int i = 0; i < kBlock; ++i)
        waux[i] = std::sqrt(weight[i]);
    for (int k = 0; k < 4; ++k) {
        int nflip = 0;
        std::uint8_t s = 0;
        for (int i = 0; i < 8; ++i) {
            if (xb[8 * k + i] >= 0.0f) {
                xval[8 * k + i] = xb[8 * k + i];
            } else {
                xval[8 * k + i] = -xb[8 * k + i];
                ++nflip;
                s = static_cast<std::uint8_t>(s | (1 << i));
            }
        }
        if (xxs && nflip % 2) {
            int imin = 0;
            float min = weight[8 * k] * xb[8 * k] * xb[8 * k];
            for (int i = 1; i < 8; ++i) {
                const float ax = weight[8 * k + i] * xb[8 * k + i] * xb[8 * k + i];
                if (ax < min) {
                    min = ax;
                    imin = i;
                }
            }
            xval[8 * k + imin] = -xval[8 * k + imin];
            s = static_cast<std::uint8_t>(s ^ (1 << imin));
        }
        signs[k] = xxs ? static_cast<std::uint8_t>(s & 127) : s;
    }
    float wx[kBlock];
    float wq2[8 * kBlock];
    for (int i = 0; i < kBlock; ++i) {
        wx[i] = weight[i] * xval[i];
        for (int l = 0; l < kMaxQ; ++l)
            wq2[8 * i + l] = weight[i] * kOddLevelValues[l] * kOddLevelValues[l];
    }
    float max = xval[0];
    for (int i = 1; i < kBlock; ++i)
        max = max > xval[i] ? max : xval[i];
    std::memset(L, 0, kBlock);
    if (xxs ? max < 1e-8f : max == 0.0f)  // GROUP_MAX_EPS_IQ3_XXS / !max
        return -1.0f;
    float best = 0.0f;
    float scale = max / float(2 * kMaxQ - 1);
    for (int k = 0; k < 8; ++k)
        onGrid[k] = xxs;
    const int range = xxs ? 15 : 9;
    for (int is = -range; is <= range; ++is) {
        const float id = (float(2 * kMaxQ - 1) + float(is) * 0.2f) / max;
        const float thisScale = 1.0f / id;
        for (int k = 0; k < 8; ++k) {
            const int mapped = t.map[levelsAt(id, xval + 4 * k, Laux + 4 * k)];
            onGridAux[k] = mapped >= 0;
            if (mapped < 0)
                bestNeighbour(t, mapped, xval + 4 * k, waux + 4 * k, thisScale, Laux + 4 * k);
        }
        float sumqx = 0.0f;
        float sumq2 = 0.0f;
        fitOf(wx, wq2, Laux, &sumqx, &sumq2);
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2;
            best = scale * sumqx;
            std::memcpy(L, Laux, kBlock);
            std::memcpy(onGrid, onGridAux, sizeof onGrid);
        }
    }
    int notOnGrid = 0;
    for (int k = 0; k < 8; ++k)
        notOnGrid += !onGrid[k];
    if (notOnGrid > 0 && scale > 0.0f) {
        const float id = 1.0f / scale;
        for (int k = 0; k < 8; ++k) {
            if (xxs && onGrid[k])
                continue;  // IQ3_S redoes every group (ggml's skip is commented out there)
            std::int8_t l4[4];
            int index = t.map[levelsAt(id, xval + 4 * k, l4)];
            if (index < 0)
                index = bestNeighbour(t, index, xval + 4 * k, waux + 4 * k, scale, L + 4 * k);
            std::memcpy(L + 4 * k, &t.gridLevels[std::size_t(index)], 4);
        }
        float sumqx = 0.0f;
        float sumq2 = 0.0f;
        fitOf(wx, wq2, L, &sumqx, &sumq2);
        if (sumq2 > 0.0f)
            scale = sumqx / sumq2;
    }
    if (scale < 0.0f) {
        scale = -scale;
        for (int k = 0; k < 4; ++k)
            signs[k] = xxs ? static_cast<std::uint8_t>(~signs[k] & 127) : static_cast<std::uint8_t>(~signs[k]);
    }
    for (int k = 0; k < 8; ++k) {
        const int index = t.map[packedIndex(t, L + 4 * k)];
        gridIndex[k] = index < 0 ? 0 : index;  // ggml aborts ("point not on grid"); unreachable for finite input
    }
    return scale;
}

}  // namespace

void quantizeRowIQ3_XXS(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ3_XXS;
    const GridTables& t = gridTables(GridKind::IQ3_XXS);
    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        const float* xbl = x + QK_K * ibl;
        std::uint8_t q3[96] = {};
        std::uint32_t scalesAndSigns[8] = {};
        float scales[QK_K / kBlock];
        float maxScale = 0.0f;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = 2.0f * sumx2 / float(QK_K);
        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            std::uint8_t signs[4];
            int gridIndex[8];
            const float scale = quantizeBlock(t, true, xbl + kBlock * ib, qw ? qw + QK_K * ibl + kBlock * ib : nullptr, sigma2, signs, gridIndex);
            if (scale < 0.0f) {  // all zero: nothing packed
                scales[ib] = 0.0f;
                continue;
            }
            for (int k = 0; k < 8; ++k)
                q3[8 * ib + k] = static_cast<std::uint8_t>(gridIndex[k]);
            scalesAndSigns[ib] = std::uint32_t(signs[0]) | (std::uint32_t(signs[1]) << 7) | (std::uint32_t(signs[2]) << 14)
                               | (std::uint32_t(signs[3]) << 21);
            scales[ib] = scale;
            maxScale = maxScale > scale ? maxScale : scale;
        }
        storeF16(dst + B::d, 0.0f);
        if (maxScale == 0.0f) {
            std::memset(dst + B::qs, 0, B::bytes - B::qs);
            continue;
        }
        const float d = maxScale / 31.0f;
        storeF16(dst + B::d, d * 1.0125f);
        const float id = 1.0f / d;
        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            int l = nearestInt(0.5f * (id * scales[ib] - 1.0f));
            l = l < 0 ? 0 : (l > 15 ? 15 : l);
            scalesAndSigns[ib] |= std::uint32_t(l) << 28;
        }
        std::memcpy(dst + B::qs, q3, 64);
        for (int ib = 0; ib < 8; ++ib)
            storeU32(dst + B::qs + 64 + 4 * ib, scalesAndSigns[ib]);
    }
}

void quantizeRowIQ3_S(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ3_S;
    const GridTables& t = gridTables(GridKind::IQ3_S);
    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        std::memset(dst, 0, B::bytes);
        const float* xbl = x + QK_K * ibl;
        float scales[QK_K / kBlock];
        float maxScale = 0.0f;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = 2.0f * sumx2 / float(QK_K);
        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            std::uint8_t signs[4];
            int gridIndex[8];
            const float scale = quantizeBlock(t, false, xbl + kBlock * ib, qw ? qw + QK_K * ibl + kBlock * ib : nullptr, sigma2, signs, gridIndex);
            if (scale < 0.0f) {  // all zero: ggml leaves this block's bytes zero
                scales[ib] = 0.0f;
                continue;
            }
            for (int k = 0; k < 8; ++k) {
                dst[B::qs + 8 * ib + k] = static_cast<std::uint8_t>(gridIndex[k] & 255);
                dst[B::qh + ib] = static_cast<std::uint8_t>(dst[B::qh + ib] | ((gridIndex[k] >> 8) << k));
            }
            std::memcpy(dst + B::signs + 4 * ib, signs, 4);
            scales[ib] = scale;
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale == 0.0f)
            continue;
        const float d = maxScale / 31.0f;
        storeF16(dst + B::d, d * 1.033f);
        const float id = 1.0f / d;
        for (int ib = 0; ib < QK_K / kBlock; ib += 2) {
            int l1 = nearestInt(0.5f * (id * scales[ib] - 1.0f));
            l1 = l1 < 0 ? 0 : (l1 > 15 ? 15 : l1);
            int l2 = nearestInt(0.5f * (id * scales[ib + 1] - 1.0f));
            l2 = l2 < 0 ? 0 : (l2 > 15 ? 15 : l2);
            dst[B::scales + ib / 2] = static_cast<std::uint8_t>(l1 | (l2 << 4));
        }
    }
}

void quantizeIQ3_XXS(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    quantizeRowIQ3_XXS(src, dst, static_cast<std::int64_t>(blockCount * blocks::QK_K), nullptr);
}

void quantizeIQ3_S(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    quantizeRowIQ3_S(src, dst, static_cast<std::int64_t>(blockCount * blocks::QK_K), nullptr);
}

}  // namespace gguf::quantize
