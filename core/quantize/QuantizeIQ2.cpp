// IQ2_XXS, IQ2_XS and IQ2_S (ggml's quantize_row_iq2_xxs_impl / iq2_xs_impl): groups of 8 magnitudes
// snapped to a grid of allowed 8-level patterns (levels 1, 3, 5 times the scale), signs kept
// apart with even parity (an odd count flips the least important element), one scale per 32
// (XXS) or 16 (XS) elements found by a search over candidate scales. Off-grid patterns go to the
// nearest grid neighbour (GridTables.h). XXS and XS need importance weights, as in ggml; IQ2_S
// (1024 patterns, 16-element scales, all 8 sign bits stored) takes them optionally.

#include "core/kernels/BlockLayouts.h"
#include "core/quantize/GridNeighbours.h"
#include "core/quantize/GridTables.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/WeightedQuantizers.h"
#include "core/quantize/WeightedSearch.h"

#include <cfloat>
#include <cmath>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);
constexpr int kMaxQ = 3;
constexpr float kGroupMaxEps = 1e-15f;

// iq2_find_best_neighbour: the neighbour with the least weighted squared error at `scale`.
int bestNeighbour(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, std::int8_t* L)
{
    const int gridIndex = bestGridNeighbour(t, mapValue, xval, weight, scale, kOddLevelValues);
    std::memcpy(L, &t.gridLevels[std::size_t(gridIndex)], 8);
    return gridIndex;
}

// The map index of 8 levels, as ggml's uint16_t u |= L << 2i. Levels outside 0..2 only arise
// from NaN input (ggml then reads past its map); such an index is clamped to an off-grid entry.
std::size_t packedIndex(const GridTables& t, const std::int8_t* L)
{
    unsigned u = 0;
    for (int i = 0; i < 8; ++i)
        u |= unsigned(std::uint8_t(L[i])) << (2 * i);
    u &= 0xFFFFu;
    return u < t.map.size() ? u : t.map.size() - 1;
}

// Magnitudes and sign bits of 8 elements; an odd number of negatives flips the element with the
// least weight * x^2 (its sign is then implied by parity). Returns the 7 stored sign bits.
std::uint8_t signsOf(const float* xb, const float* weight, float* xval)
{
    int nflip = 0;
    std::uint8_t s = 0;
    for (int i = 0; i < 8; ++i) {
        if (xb[i] >= 0.0f) {
            xval[i] = xb[i];
        } else {
            xval[i] = -xb[i];
            ++nflip;
            s = static_cast<std::uint8_t>(s | (1 << i));
        }
    }
    if (nflip % 2) {
        int imin = 0;
        float min = weight[0] * xb[0] * xb[0];
        for (int i = 1; i < 8; ++i) {
            const float ax = weight[i] * xb[i] * xb[i];
            if (ax < min) {
                min = ax;
                imin = i;
            }
        }
        xval[imin] = -xval[imin];
        s = static_cast<std::uint8_t>(s ^ (1 << imin));
    }
    return static_cast<std::uint8_t>(s & 127);
}

// The levels of 8 values at inverse scale id, and their map index (packedIndex of them: levels
// are 0..2, so the index is below the map size).
unsigned levelsAt(float id, const float* xval, std::int8_t* L)
{
    unsigned u = 0;
    for (int i = 0; i < 8; ++i) {
        int l = nearestInt(0.5f * (id * xval[i] - 1.0f));
        l = l < 0 ? 0 : (l > kMaxQ - 1 ? kMaxQ - 1 : l);
        L[i] = static_cast<std::int8_t>(l);
        u |= unsigned(l) << (2 * i);
    }
    return u;
}

// The products ggml's fit forms first: wx[i] = w x and wq2[4 i + l] = w q q for q = 2l + 1.
void fitTerms(int n, const float* weight, const float* xval, float* wx, float* wq2)
{
    for (int i = 0; i < n; ++i) {
        wx[i] = weight[i] * xval[i];
        for (int l = 0; l < kMaxQ; ++l)
            wq2[4 * i + l] = weight[i] * kOddLevelValues[l] * kOddLevelValues[l];
    }
}

// sum w x q and sum w q^2 for q = 2L + 1, in element order.
void fitOf(int n, const float* wx, const float* wq2, const std::int8_t* L, float* sumqx, float* sumq2)
{
    float qx = 0.0f;
    float q2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        qx += wx[i] * kOddLevelValues[L[i]];
        q2 += wq2[4 * i + L[i]];
    }
    *sumqx = qx;
    *sumq2 = q2;
}

// One 16-value group of IQ2_XS or IQ2_S (ggml's search, shared by both): 19 trial scales around
// max / (2 kMaxQ - 1), each half snapped to the grid or its best neighbour, the best fit kept;
// then the halves still off the grid are snapped again at that scale and the scale refitted.
// Fills L with the levels and returns the scale (negative when the fit flips the signs).
float groupScaleOnGrid(const GridTables& t, const float* weight, const float* waux, const float* xval, float max, std::int8_t* L)
{
    std::int8_t Laux[16];
    float wx[16];
    float wq2[4 * 16];
    fitTerms(16, weight, xval, wx, wq2);
    bool onGrid[2];
    bool onGridAux[2];
    float best = 0.0f;
    float scale = max / float(2 * kMaxQ - 1);
    onGrid[0] = onGrid[1] = true;
    for (int is = -9; is <= 9; ++is) {
        const float id = (float(2 * kMaxQ - 1) + float(is) * 0.1f) / max;
        const float thisScale = 1.0f / id;
        for (int k = 0; k < 2; ++k) {
            const int mapped = t.map[levelsAt(id, xval + 8 * k, Laux + 8 * k)];
            onGridAux[k] = mapped >= 0;
            if (mapped < 0)
                bestNeighbour(t, mapped, xval + 8 * k, waux + 8 * k, thisScale, Laux + 8 * k);
        }
        float sumqx = 0.0f;
        float sumq2 = 0.0f;
        fitOf(16, wx, wq2, Laux, &sumqx, &sumq2);
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2;
            best = scale * sumqx;
            std::memcpy(L, Laux, 16);
            onGrid[0] = onGridAux[0];
            onGrid[1] = onGridAux[1];
        }
    }
    if ((!onGrid[0] || !onGrid[1]) && scale > 0.0f) {
        const float id = 1.0f / scale;
        for (int k = 0; k < 2; ++k) {
            if (onGrid[k])
                continue;
            const int mapped = t.map[levelsAt(id, xval + 8 * k, L + 8 * k)];
            if (mapped < 0)
                bestNeighbour(t, mapped, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
        }
        float sumqx = 0.0f;
        float sumq2 = 0.0f;
        fitOf(16, wx, wq2, L, &sumqx, &sumq2);
        if (sumq2 > 0.0f)
            scale = sumqx / sumq2;
    }
    return scale;
}
}  // namespace

void quantizeRowIQ2_XXS(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ2_XXS;
    const GridTables& t = gridTables(GridKind::IQ2_XXS);
    float scales[QK_K / 32];
    float weight[32];
    float xval[32];
    std::int8_t L[32];
    std::int8_t Laux[32];
    float waux[32];
    std::uint8_t blockSigns[4];
    std::uint32_t q2[2 * (QK_K / 32)];

    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        storeF16(dst + B::d, 0.0f);
        std::memset(q2, 0, sizeof q2);
        float maxScale = 0.0f;
        const float* xbl = x + QK_K * ibl;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = sumx2 / float(QK_K);

        for (int ib = 0; ib < QK_K / 32; ++ib) {
            const float* xb = xbl + 32 * ib;
            const float* w = qw + QK_K * ibl + 32 * ib;
            for (int i = 0; i < 32; ++i)
                weight[i] = w[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
            for (int i = 0; i < 32; ++i)
                waux[i] = std::sqrt(weight[i]);
            for (int k = 0; k < 4; ++k)
                blockSigns[k] = signsOf(xb + 8 * k, weight + 8 * k, xval + 8 * k);
            float max = xval[0];
            for (int i = 1; i < 32; ++i)
                max = max > xval[i] ? max : xval[i];
            if (max < kGroupMaxEps) {
                scales[ib] = 0.0f;
                std::memset(L, 0, 32);
                continue;
            }
            float scale = makePositiveLevels(32, kMaxQ + 1, xval, weight, reinterpret_cast<std::uint8_t*>(L));
            const float effMax = scale * float(kMaxQ);
            if (effMax <= 0.0f) {
                scales[ib] = 0.0f;
                std::memset(L, 0, 32);
                continue;
            }
            float wx[32];
            float wq2[4 * 32];
            fitTerms(32, weight, xval, wx, wq2);
            float best = 0.0f;
            for (int is = -6; is <= 6; ++is) {
                const float id = (float(2 * kMaxQ - 1) + float(is) * 0.1f) / effMax;
                const float thisScale = 1.0f / id;
                for (int k = 0; k < 4; ++k) {
                    const int mapped = t.map[levelsAt(id, xval + 8 * k, Laux + 8 * k)];
                    if (mapped < 0)
                        bestNeighbour(t, mapped, xval + 8 * k, waux + 8 * k, thisScale, Laux + 8 * k);
                }
                float sumqx = 0.0f;
                float sumq2 = 0.0f;
                fitOf(32, wx, wq2, Laux, &sumqx, &sumq2);
                if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
                    scale = sumqx / sumq2;
                    best = scale * sumqx;
                    std::memcpy(L, Laux, 32);
                }
            }
            if (scale > 0.0f) {
                const float id = 1.0f / scale;
                for (int k = 0; k < 4; ++k) {
                    std::int8_t l8[8];
                    int gridIndex = t.map[levelsAt(id, xval + 8 * k, l8)];
                    if (gridIndex < 0)
                        gridIndex = bestNeighbour(t, gridIndex, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
                    std::memcpy(L + 8 * k, &t.gridLevels[std::size_t(gridIndex)], 8);
                }
                float sumqx = 0.0f;
                float sumq2 = 0.0f;
                fitOf(32, wx, wq2, L, &sumqx, &sumq2);
                if (sumq2 > 0.0f)
                    scale = sumqx / sumq2;
            }
            if (scale < 0.0f) {
                scale = -scale;
                for (int k = 0; k < 4; ++k)
                    blockSigns[k] = static_cast<std::uint8_t>(~blockSigns[k] & 127);
            }
            for (int k = 0; k < 4; ++k) {
                int gridIndex = t.map[(packedIndex(t, L + 8 * k))];
                if (gridIndex < 0)
                    gridIndex = 0;  // ggml aborts ("point not on grid"); unreachable for finite input
                q2[2 * ib] |= std::uint32_t(gridIndex) << (8 * k);
                q2[2 * ib + 1] |= std::uint32_t(blockSigns[k]) << (7 * k);
            }
            scales[ib] = scale;
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale == 0.0f) {
            std::memset(dst + B::qs, 0, QK_K / 4);
            continue;
        }
        const float d = maxScale / 31.0f;
        storeF16(dst + B::d, d);
        const float id = 1.0f / d;
        for (int ib = 0; ib < QK_K / 32; ++ib) {
            int l = nearestInt(0.5f * (id * scales[ib] - 1.0f));
            l = l < 0 ? 0 : (l > 15 ? 15 : l);
            q2[2 * ib + 1] |= std::uint32_t(l) << 28;
        }
        for (int i = 0; i < 2 * (QK_K / 32); ++i)
            storeU32(dst + B::qs + 4 * i, q2[i]);
    }
}

void quantizeRowIQ2_XS(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ2_XS;
    const GridTables& t = gridTables(GridKind::IQ2_XS);
    float scales[QK_K / 16];
    float weight[16];
    float xval[16];
    std::int8_t L[16];
    float waux[16];
    std::uint8_t blockSigns[2];
    std::uint16_t q2[2 * (QK_K / 16)];

    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        storeF16(dst + B::d, 0.0f);
        std::memset(q2, 0, sizeof q2);
        std::memset(dst + B::scales, 0, QK_K / 32);
        float maxScale = 0.0f;
        const float* xbl = x + QK_K * ibl;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = sumx2 / float(QK_K);

        for (int ib = 0; ib < QK_K / 16; ++ib) {
            const float* xb = xbl + 16 * ib;
            const float* w = qw + QK_K * ibl + 16 * ib;
            for (int i = 0; i < 16; ++i)
                weight[i] = w[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
            for (int i = 0; i < 16; ++i)
                waux[i] = std::sqrt(weight[i]);
            for (int k = 0; k < 2; ++k)
                blockSigns[k] = signsOf(xb + 8 * k, weight + 8 * k, xval + 8 * k);
            float max = xval[0];
            for (int i = 1; i < 16; ++i)
                max = max > xval[i] ? max : xval[i];
            std::memset(L, 0, 16);
            if (max < kGroupMaxEps) {
                scales[ib] = 0.0f;
                continue;
            }
            float scale = groupScaleOnGrid(t, weight, waux, xval, max, L);
            if (scale < 0.0f) {
                scale = -scale;
                for (int k = 0; k < 2; ++k)
                    blockSigns[k] = static_cast<std::uint8_t>(~blockSigns[k] & 127);
            }
            for (int k = 0; k < 2; ++k) {
                int gridIndex = t.map[(packedIndex(t, L + 8 * k))];
                if (gridIndex < 0)
                    gridIndex = 0;  // ggml aborts ("point not on grid"); unreachable for finite input
                q2[2 * ib + k] = static_cast<std::uint16_t>(gridIndex | (blockSigns[k] << 9));
            }
            scales[ib] = scale;
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale == 0.0f) {
            std::memset(dst + B::qs, 0, QK_K / 4);
            continue;
        }
        const float d = maxScale / 31.0f;
        storeF16(dst + B::d, d);
        const float id = 1.0f / d;
        std::uint8_t* sc = dst + B::scales;
        for (int ib = 0; ib < QK_K / 16; ++ib) {
            int l = nearestInt(0.5f * (id * scales[ib] - 1.0f));
            l = l < 0 ? 0 : (l > 15 ? 15 : l);
            if (ib % 2 == 0)
                sc[ib / 2] = static_cast<std::uint8_t>(l);
            else
                sc[ib / 2] = static_cast<std::uint8_t>(sc[ib / 2] | (l << 4));
        }
        for (int i = 0; i < 2 * (QK_K / 16); ++i) {
            dst[B::qs + 2 * i] = static_cast<std::uint8_t>(q2[i] & 0xFF);
            dst[B::qs + 2 * i + 1] = static_cast<std::uint8_t>(q2[i] >> 8);
        }
    }
}

void quantizeRowIQ2_S(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ2_S;
    const GridTables& t = gridTables(GridKind::IQ2_S);
    float scales[QK_K / 16];
    float weight[16];
    float xval[16];
    std::int8_t L[16];
    float waux[16];
    std::uint8_t blockSigns[2];

    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        std::memset(dst, 0, B::bytes);
        float maxScale = 0.0f;
        const float* xbl = x + QK_K * ibl;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = 2.0f * sumx2 / float(QK_K);

        for (int ib = 0; ib < QK_K / 16; ++ib) {
            const float* xb = xbl + 16 * ib;
            const float* w = qw ? qw + QK_K * ibl + 16 * ib : nullptr;
            if (qw) {
                for (int i = 0; i < 16; ++i)
                    weight[i] = w[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
            } else {
                for (int i = 0; i < 16; ++i)
                    weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
            }
            for (int i = 0; i < 16; ++i)
                waux[i] = std::sqrt(weight[i]);
            for (int k = 0; k < 2; ++k) {  // all 8 sign bits, no parity trick
                std::uint8_t s = 0;
                for (int i = 0; i < 8; ++i) {
                    if (xb[8 * k + i] >= 0.0f) {
                        xval[8 * k + i] = xb[8 * k + i];
                    } else {
                        xval[8 * k + i] = -xb[8 * k + i];
                        s = static_cast<std::uint8_t>(s | (1 << i));
                    }
                }
                blockSigns[k] = s;
            }
            float max = xval[0];
            for (int i = 1; i < 16; ++i)
                max = max > xval[i] ? max : xval[i];
            std::memset(L, 0, 16);
            if (max < 1e-8f) {  // GROUP_MAX_EPS_IQ2_S
                scales[ib] = 0.0f;
                continue;
            }
            float scale = groupScaleOnGrid(t, weight, waux, xval, max, L);
            if (scale < 0.0f) {
                scale = -scale;
                for (int k = 0; k < 2; ++k)
                    blockSigns[k] = static_cast<std::uint8_t>(~blockSigns[k]);
            }
            for (int k = 0; k < 2; ++k) {
                int gridIndex = t.map[(packedIndex(t, L + 8 * k))];
                if (gridIndex < 0)
                    gridIndex = 0;  // ggml aborts ("point not on grid"); unreachable for finite input
                const int i8 = 2 * ib + k;
                dst[B::qs + i8] = static_cast<std::uint8_t>(gridIndex & 255);
                dst[B::qh + i8 / 4] = static_cast<std::uint8_t>(dst[B::qh + i8 / 4] | ((gridIndex >> 8) << (2 * (i8 % 4))));
                dst[B::qs + QK_K / 8 + i8] = blockSigns[k];
            }
            scales[ib] = scale;
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale == 0.0f)
            continue;
        const float d = maxScale / 31.0f;
        storeF16(dst + B::d, d * 0.9875f);
        const float id = 1.0f / d;
        std::uint8_t* sc = dst + B::scales;
        for (int ib = 0; ib < QK_K / 16; ++ib) {
            int l = nearestInt(0.5f * (id * scales[ib] - 1.0f));
            l = l < 0 ? 0 : (l > 15 ? 15 : l);
            if (ib % 2 == 0)
                sc[ib / 2] = static_cast<std::uint8_t>(l);
            else
                sc[ib / 2] = static_cast<std::uint8_t>(sc[ib / 2] | (l << 4));
        }
    }
}

void quantizeIQ2_S(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    quantizeRowIQ2_S(src, dst, static_cast<std::int64_t>(blockCount * blocks::QK_K), nullptr);
}

}  // namespace gguf::quantize
