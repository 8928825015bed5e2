// The AVX2 form of bestTernarySplit (TernarySplit.h).

#include "core/quantize/TernarySplit.h"

#if GGUFX_X86_KERNELS

#include <immintrin.h>

#include <cfloat>

namespace gguf::quantize {

namespace {

constexpr int kMaxBlock = 64;

// The parts of one shift's fit that do not depend on i1: the level +1 terms per i2.
struct Tails {
    alignas(32) float qx[kMaxBlock + 1 + 8];
    alignas(32) float q2[kMaxBlock + 1 + 8];
};

void tailsOf(const float* sumx, const float* sumw, int n, const float* v, Tails& t)
{
    for (int i2 = 0; i2 <= n; ++i2) {
        t.qx[i2] = (sumx[n] - sumx[i2]) * v[2];
        t.q2[i2] = (sumw[n] - sumw[i2]) * v[2] * v[2];
    }
    for (int i2 = n + 1; i2 < n + 1 + 8; ++i2)
        t.qx[i2] = t.q2[i2] = 0.0f;
}

TernarySplit splitAvx2(const float* sumx, const float* sumw, int n, float scale, const float* plus, const float* minus)
{
    if (n > kMaxBlock)
        return bestTernarySplitScalar(sumx, sumw, n, scale, plus, minus);
    TernarySplit best;
    best.scale = scale;
    float bestScore = -FLT_MAX;
    Tails tp;
    Tails tm;
    tailsOf(sumx, sumw, n, plus, tp);
    tailsOf(sumx, sumw, n, minus, tm);
    const __m256 p1 = _mm256_set1_ps(plus[1]);
    const __m256 m1 = _mm256_set1_ps(minus[1]);
    const __m256 zero = _mm256_setzero_ps();
    const __m256i laneIndex = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int i1 = 0; i1 <= n; ++i1) {
        const float dx = sumx[i1] - sumx[0];
        const float dw = sumw[i1] - sumw[0];
        const __m256 headQxP = _mm256_set1_ps(dx * plus[0]);
        const __m256 headQ2P = _mm256_set1_ps(dw * plus[0] * plus[0]);
        const __m256 headQxM = _mm256_set1_ps(dx * minus[0]);
        const __m256 headQ2M = _mm256_set1_ps(dw * minus[0] * minus[0]);
        const __m256 x1 = _mm256_set1_ps(sumx[i1]);
        const __m256 w1 = _mm256_set1_ps(sumw[i1]);
        for (int i2 = i1; i2 <= n; i2 += 8) {
            const __m256 midX = _mm256_sub_ps(_mm256_loadu_ps(sumx + i2), x1);
            const __m256 midW = _mm256_sub_ps(_mm256_loadu_ps(sumw + i2), w1);
            const __m256 qxP = _mm256_add_ps(_mm256_add_ps(headQxP, _mm256_mul_ps(midX, p1)), _mm256_loadu_ps(tp.qx + i2));
            const __m256 q2P = _mm256_add_ps(_mm256_add_ps(headQ2P, _mm256_mul_ps(_mm256_mul_ps(midW, p1), p1)), _mm256_loadu_ps(tp.q2 + i2));
            const __m256 qxM = _mm256_add_ps(_mm256_add_ps(headQxM, _mm256_mul_ps(midX, m1)), _mm256_loadu_ps(tm.qx + i2));
            const __m256 q2M = _mm256_add_ps(_mm256_add_ps(headQ2M, _mm256_mul_ps(_mm256_mul_ps(midW, m1), m1)), _mm256_loadu_ps(tm.q2 + i2));
            const __m256 bestV = _mm256_set1_ps(bestScore);
            const __m256 winP = _mm256_and_ps(_mm256_cmp_ps(q2P, zero, _CMP_GT_OQ),
                                              _mm256_cmp_ps(_mm256_mul_ps(qxP, qxP), _mm256_mul_ps(bestV, q2P), _CMP_GT_OQ));
            const __m256 winM = _mm256_and_ps(_mm256_cmp_ps(q2M, zero, _CMP_GT_OQ),
                                              _mm256_cmp_ps(_mm256_mul_ps(qxM, qxM), _mm256_mul_ps(bestV, q2M), _CMP_GT_OQ));
            const __m256 valid = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(n + 1 - i2), laneIndex));
            if (_mm256_movemask_ps(_mm256_and_ps(_mm256_or_ps(winP, winM), valid)) == 0)
                continue;
            // Some lane beats the best as it stood before this vector: replay the vector in ggml's
            // order (i2 ascending, +delta before -delta), the best updating as it goes.
            alignas(32) float lane[4][8];
            _mm256_store_ps(lane[0], qxP);
            _mm256_store_ps(lane[1], q2P);
            _mm256_store_ps(lane[2], qxM);
            _mm256_store_ps(lane[3], q2M);
            const int lanes = n + 1 - i2 < 8 ? n + 1 - i2 : 8;
            for (int k = 0; k < lanes; ++k)
                for (int s = 0; s < 2; ++s) {
                    const float sumqx = lane[2 * s][k];
                    const float sumq2 = lane[2 * s + 1][k];
                    if (sumq2 > 0.0f && sumqx * sumqx > bestScore * sumq2) {
                        best.scale = sumqx / sumq2;
                        bestScore = best.scale * sumqx;
                        best.i1 = i1;
                        best.i2 = i2 + k;
                        best.shift = s == 0 ? 1 : -1;
                    }
                }
        }
    }
    return best;
}

}  // namespace

using TernarySplitFn = TernarySplit (*)(const float*, const float*, int, float, const float*, const float*);
TernarySplitFn bestTernarySplitAvx2()
{
    return splitAvx2;
}

}  // namespace gguf::quantize

#endif
