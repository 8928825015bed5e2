// IQ1_S and IQ1_M (ggml's quantize_row_iq1_s_impl / iq1_m_impl): ternary levels (-1, 0, 1) plus a
// shared +-delta per block, chosen by an exact search over the two thresholds that split the
// block's values (sorted ascending) into three groups, then snapped, 8 at a time, to the
// 2048-pattern grid (GridTables.h). IQ1_S: 32-element blocks, needs importance weights;
// IQ1_M: 16-element blocks, a delta sign per 8-element half, weights optional.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/Codebooks.h"
#include "core/quantize/GridNeighbours.h"
#include "core/quantize/GridTables.h"
#include "core/quantize/QuantizeCommon.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/TernarySplit.h"
#include "core/quantize/WeightedQuantizers.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace gguf::quantize {

namespace {

constexpr int QK_K = static_cast<int>(blocks::QK_K);
constexpr float kDelta = codebooks::IQ1S_DELTA;
constexpr float kPlus[3] = {-1.0f + kDelta, kDelta, 1.0f + kDelta};
constexpr float kMinus[3] = {-1.0f - kDelta, -kDelta, 1.0f - kDelta};

inline const std::int8_t* entryOf(const GridTables& t, int index)
{
    return reinterpret_cast<const std::int8_t*>(&t.grid[std::size_t(index)]);
}

std::size_t packedIndex(const GridTables& t, const std::int8_t* L)
{
    unsigned u = 0;
    for (int i = 0; i < 8; ++i)
        u |= unsigned(std::uint8_t(L[i])) << (2 * i);
    u &= 0xFFFFu;
    return u < t.map.size() ? u : t.map.size() - 1;
}

// iq1_find_best_neighbour2: the neighbour with the least weighted squared error at `scale`
// with the levels xg (-1, 0, 1 shifted by +-delta).
int bestNeighbour(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, const float* xg, std::int8_t* L)
{
    const int gridIndex = bestGridNeighbour(t, mapValue, xval, weight, scale, xg);
    std::memcpy(L, &t.gridLevels[std::size_t(gridIndex)], 8);
    return gridIndex;
}

// The block's element indices ordered by value. glibc's qsort (a merge sort for arrays this
// small) keeps equal values in input order, as a stable sort does.
void sortedOrder(const float* xb, int n, int* order)
{
    for (int j = 0; j < n; ++j)
        order[j] = j;
    std::stable_sort(order, order + n, [xb](int a, int b) { return xb[a] < xb[b]; });
}

}  // namespace

void quantizeRowIQ1_S(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ1_S;
    constexpr int kBlock = 32;
    const GridTables& t = gridTables(GridKind::IQ1_S);
    float scales[QK_K / kBlock];
    float weight[kBlock];
    float sumx[kBlock + 1 + 8] = {};  // + 8: the split search reads whole vectors
    float sumw[kBlock + 1 + 8] = {};
    int order[kBlock];
    std::int8_t L[kBlock];
    std::uint16_t index[kBlock / 8];
    std::int8_t shifts[QK_K / kBlock];

    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        std::memset(dst, 0, B::bytes);
        std::uint16_t qh[QK_K / kBlock] = {};
        float maxScale = 0.0f;
        const float* xbl = x + QK_K * ibl;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = 2.0f * sumx2 / float(QK_K);

        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            const float* xb = xbl + kBlock * ib;
            const float* w = qw + QK_K * ibl + kBlock * ib;
            for (int i = 0; i < kBlock; ++i)
                weight[i] = w[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
            float max = fabsOf(xb[0]);
            for (int i = 1; i < kBlock; ++i)
                max = max > fabsOf(xb[i]) ? max : fabsOf(xb[i]);
            if (max < 1e-12f) {  // GROUP_MAX_EPS_IQ1_S
                scales[ib] = 0.0f;
                shifts[ib] = 1;
                continue;
            }
            sortedOrder(xb, kBlock, order);
            sumx[0] = sumw[0] = 0.0f;
            for (int j = 0; j < kBlock; ++j) {
                const int i = order[j];
                sumx[j + 1] = sumx[j] + weight[i] * xb[i];
                sumw[j + 1] = sumw[j] + weight[i];
            }
            const TernarySplit split = bestTernarySplit(sumx, sumw, kBlock, max, kPlus, kMinus);
            float scale = split.scale;
            const int besti1 = split.i1;
            const int besti2 = split.i2;
            int bestShift = split.shift;
            if (besti1 < 0 || besti2 < 0 || bestShift == 0) {
                scales[ib] = 0.0f;
                shifts[ib] = 1;
                continue;
            }
            for (int j = 0; j < besti1; ++j)
                L[order[j]] = 0;
            for (int j = besti1; j < besti2; ++j)
                L[order[j]] = 1;
            for (int j = besti2; j < kBlock; ++j)
                L[order[j]] = 2;
            if (scale < 0.0f) {
                for (int j = 0; j < kBlock; ++j)
                    L[j] = static_cast<std::int8_t>(2 - L[j]);
                scale = -scale;
                bestShift = -bestShift;
            }
            bool allOnGrid = true;
            const float* xx = bestShift == 1 ? kPlus : kMinus;
            for (int k = 0; k < kBlock / 8; ++k) {
                int gridIndex = t.map[packedIndex(t, L + 8 * k)];
                if (gridIndex < 0) {
                    allOnGrid = false;
                    gridIndex = bestNeighbour(t, gridIndex, xb + 8 * k, weight + 8 * k, scale, xx, L + 8 * k);
                }
                index[k] = static_cast<std::uint16_t>(gridIndex);
            }
            if (!allOnGrid) {
                float sumqx = 0.0f;
                float sumq2 = 0.0f;
                for (int k = 0; k < kBlock / 8; ++k) {
                    const std::int8_t* pg = entryOf(t, index[k]);
                    for (int j = 0; j < 8; ++j) {
                        const float wj = weight[8 * k + j];
                        const float q = xx[(pg[j] - 1) / 2];
                        sumqx += wj * q * xb[8 * k + j];
                        sumq2 += wj * q * q;
                    }
                }
                if (sumqx > 0.0f && sumq2 > 0.0f)
                    scale = sumqx / sumq2;
            }
            std::uint16_t h = 0;
            for (int k = 0; k < kBlock / 8; ++k) {
                dst[B::qs + (kBlock / 8) * ib + k] = static_cast<std::uint8_t>(index[k] & 255);
                h = static_cast<std::uint16_t>(h | ((index[k] >> 8) << (3 * k)));
            }
            qh[ib] = h;
            scales[ib] = scale;
            shifts[ib] = static_cast<std::int8_t>(bestShift);
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale != 0.0f) {
            const float d = maxScale / 15.0f;
            storeF16(dst + B::d, d * 1.125f);
            const float id = 1.0f / d;
            for (int ib = 0; ib < QK_K / kBlock; ++ib) {
                int l = nearestInt(0.5f * (id * scales[ib] - 1.0f));
                l = std::max(0, std::min(7, l));
                if (shifts[ib] == -1)
                    l |= 8;
                qh[ib] = static_cast<std::uint16_t>(qh[ib] | (l << 12));
            }
        }
        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            dst[B::qh + 2 * ib] = static_cast<std::uint8_t>(qh[ib] & 0xFF);
            dst[B::qh + 2 * ib + 1] = static_cast<std::uint8_t>(qh[ib] >> 8);
        }
    }
}

void quantizeRowIQ1_M(const float* x, std::uint8_t* dst, std::int64_t n, const float* qw)
{
    using B = blocks::IQ1_M;
    constexpr int kBlock = 16;
    const GridTables& t = gridTables(GridKind::IQ1_S);
    constexpr std::uint8_t kMasks[4] = {0x00, 0x80, 0x08, 0x88};
    float scales[QK_K / kBlock];
    float weight[kBlock];
    int order[kBlock];
    std::int8_t L[kBlock];
    std::uint16_t index[kBlock / 8];
    std::int8_t shifts[QK_K / kBlock];

    auto weightsOf = [&](const float* xb, std::int64_t ibl, int ib, float sigma2) {
        if (qw) {
            const float* w = qw + QK_K * ibl + kBlock * ib;
            for (int i = 0; i < kBlock; ++i)
                weight[i] = w[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
        } else {
            for (int i = 0; i < kBlock; ++i)
                weight[i] = xb[i] * xb[i];
        }
    };
    // The levels of half k of a block whose delta signs are `shift` (0: +,+ 1: +,- 2: -,+ 3: -,-).
    auto levelsOf = [](int shift, int k) { return (k == 0 ? shift < 2 : shift % 2 == 0) ? kPlus : kMinus; };

    for (std::int64_t ibl = 0; ibl < n / QK_K; ++ibl, dst += B::bytes) {
        std::memset(dst, 0, B::bytes);
        std::uint8_t* qs = dst + B::qs;
        std::uint8_t* qh = dst + B::qh;
        float maxScale = 0.0f;
        const float* xbl = x + QK_K * ibl;
        float sumx2 = 0.0f;
        for (int i = 0; i < QK_K; ++i)
            sumx2 += xbl[i] * xbl[i];
        const float sigma2 = 2.0f * sumx2 / float(QK_K);

        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            const float* xb = xbl + kBlock * ib;
            weightsOf(xb, ibl, ib, sigma2);
            float max = fabsOf(xb[0]);
            for (int i = 1; i < kBlock; ++i)
                max = max > fabsOf(xb[i]) ? max : fabsOf(xb[i]);
            if (max < 1e-7f) {  // GROUP_MAX_EPS_IQ1_M
                scales[ib] = 0.0f;
                shifts[ib] = 0;
                continue;
            }
            sortedOrder(xb, kBlock, order);
            float bestScore = -FLT_MAX;
            float scale = max;
            int besti1 = -1;
            int besti2 = -1;
            int bestK = -1;
            // Each half may take its own delta sign (k: 0 = +,+  1 = +,-  2 = -,+  3 = -,-); ggml
            // sums the four fits of every split (i1, i2) element by element in sorted order. The
            // summands depend only on the element and its level, and the sums of a split share
            // their first i1 (level 0) and next i2 - i1 (level 1) steps with their neighbours, so
            // those partial sums are carried from split to split and only the level-2 tail is
            // added per split: the same additions in the same order, the same floats.
            float steps[kBlock][3][8];  // per sorted element and level: sumqx[0..3], sumq2[0..3]
            for (int j = 0; j < kBlock; ++j) {
                const int i = order[j];
                for (int level = 0; level < 3; ++level) {
                    const float wp = weight[i] * kPlus[level];
                    const float wm = weight[i] * kMinus[level];
                    const float qxp = wp * xb[i];
                    const float qxm = wm * xb[i];
                    const float q2p = wp * kPlus[level];
                    const float q2m = wm * kMinus[level];
                    float* step = steps[j][level];
                    const bool firstHalf = i < kBlock / 2;  // first half: k 0, 1 use +delta; second: k 0, 2
                    step[0] = qxp;
                    step[1] = firstHalf ? qxp : qxm;
                    step[2] = firstHalf ? qxm : qxp;
                    step[3] = qxm;
                    step[4] = q2p;
                    step[5] = firstHalf ? q2p : q2m;
                    step[6] = firstHalf ? q2m : q2p;
                    step[7] = q2m;
                }
            }
            float head[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};  // j < i1 at level 0
            for (int i1 = 0; i1 <= kBlock; ++i1) {
                float mid[8];  // then i1 <= j < i2 at level 1
                std::memcpy(mid, head, sizeof mid);
                for (int i2 = i1; i2 <= kBlock; ++i2) {
                    float sums[8];
                    std::memcpy(sums, mid, sizeof sums);
                    for (int j = i2; j < kBlock; ++j)
                        for (int k = 0; k < 8; ++k)
                            sums[k] += steps[j][2][k];
                    for (int k = 0; k < 4; ++k) {
                        const float sumqx = sums[k];
                        const float sumq2 = sums[4 + k];
                        if (sumq2 > 0.0f && sumqx * sumqx > bestScore * sumq2) {
                            scale = sumqx / sumq2;
                            bestScore = scale * sumqx;
                            besti1 = i1;
                            besti2 = i2;
                            bestK = k;
                        }
                    }
                    if (i2 < kBlock)
                        for (int k = 0; k < 8; ++k)
                            mid[k] += steps[i2][1][k];
                }
                if (i1 < kBlock)
                    for (int k = 0; k < 8; ++k)
                        head[k] += steps[i1][0][k];
            }
            if (besti1 < 0 || besti2 < 0 || bestK < 0) {
                scales[ib] = 0.0f;
                shifts[ib] = 0;
                continue;
            }
            for (int j = 0; j < besti1; ++j)
                L[order[j]] = 0;
            for (int j = besti1; j < besti2; ++j)
                L[order[j]] = 1;
            for (int j = besti2; j < kBlock; ++j)
                L[order[j]] = 2;
            if (scale < 0.0f) {
                for (int j = 0; j < kBlock; ++j)
                    L[j] = static_cast<std::int8_t>(2 - L[j]);
                scale = -scale;
                bestK = 3 - bestK;
            }
            bool allOnGrid = true;
            for (int k = 0; k < kBlock / 8; ++k) {
                const float* xx = levelsOf(bestK, k);
                int gridIndex = t.map[packedIndex(t, L + 8 * k)];
                if (gridIndex < 0) {
                    allOnGrid = false;
                    gridIndex = bestNeighbour(t, gridIndex, xb + 8 * k, weight + 8 * k, scale, xx, L + 8 * k);
                }
                index[k] = static_cast<std::uint16_t>(gridIndex);
            }
            if (!allOnGrid) {
                float sumqx = 0.0f;
                float sumq2 = 0.0f;
                for (int k = 0; k < kBlock / 8; ++k) {
                    const float* xx = levelsOf(bestK, k);
                    const std::int8_t* pg = entryOf(t, index[k]);
                    for (int j = 0; j < 8; ++j) {
                        const float wj = weight[8 * k + j];
                        const float q = xx[(pg[j] - 1) / 2];
                        sumqx += wj * q * xb[8 * k + j];
                        sumq2 += wj * q * q;
                    }
                }
                if (sumqx > 0.0f && sumq2 > 0.0f)
                    scale = sumqx / sumq2;
            }
            qs[2 * ib] = static_cast<std::uint8_t>(index[0] & 255);
            qs[2 * ib + 1] = static_cast<std::uint8_t>(index[1] & 255);
            qh[ib] = static_cast<std::uint8_t>((index[0] >> 8) | ((index[1] >> 8) << 4));
            scales[ib] = scale;
            shifts[ib] = static_cast<std::int8_t>(bestK);
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale == 0.0f)
            continue;

        std::uint16_t sc[4] = {};
        float d = maxScale / 15.0f;
        const float id = 1.0f / d;
        float sumqxAll = 0.0f;
        float sumq2All = 0.0f;
        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            int l = nearestInt(0.5f * (id * scales[ib] - 1.0f));
            l = std::max(0, std::min(7, l));
            sc[ib / 4] = static_cast<std::uint16_t>(sc[ib / 4] | (l << (3 * (ib % 4))));
            qh[ib] = static_cast<std::uint8_t>(qh[ib] | kMasks[shifts[ib] & 3]);
            const float* xb = xbl + kBlock * ib;
            weightsOf(xb, ibl, ib, sigma2);
            for (int k = 0; k < kBlock / 8; ++k) {
                const float* xx = levelsOf(shifts[ib], k);
                const int gridIndex = qs[2 * ib + k] + ((qh[ib] << (8 - 4 * k)) & 0x700);
                const std::int8_t* pg = entryOf(t, gridIndex);
                for (int j = 0; j < 8; ++j) {
                    const float wj = weight[8 * k + j];
                    const float q = xx[(pg[j] - 1) / 2] * float(2 * l + 1);
                    sumqxAll += wj * q * xb[8 * k + j];
                    sumq2All += wj * q * q;
                }
            }
        }
        if (sumq2All > 0.0f)
            d = sumqxAll / sumq2All;
        const std::uint16_t s = f32ToF16Bits(d * 1.1125f);
        sc[0] = static_cast<std::uint16_t>(sc[0] | ((s & 0x000f) << 12));
        sc[1] = static_cast<std::uint16_t>(sc[1] | ((s & 0x00f0) << 8));
        sc[2] = static_cast<std::uint16_t>(sc[2] | ((s & 0x0f00) << 4));
        sc[3] = static_cast<std::uint16_t>(sc[3] | (s & 0xf000));
        for (int i = 0; i < 4; ++i) {
            dst[B::scales + 2 * i] = static_cast<std::uint8_t>(sc[i] & 0xFF);
            dst[B::scales + 2 * i + 1] = static_cast<std::uint8_t>(sc[i] >> 8);
        }
    }
}

void quantizeIQ1_M(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    quantizeRowIQ1_M(src, dst, static_cast<std::int64_t>(blockCount * blocks::QK_K), nullptr);
}

}  // namespace gguf::quantize
