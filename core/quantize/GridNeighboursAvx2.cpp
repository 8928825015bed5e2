// The AVX2 neighbour search (GridNeighbours.h): 8 candidates per block in the lanes of one
// register. Each lane adds its candidate's terms in element order, as the scalar loop does,
// so every distance is the same float; a block is only walked lane by lane (first wins) when
// some lane beats the best so far.

#include "core/quantize/GridNeighbours.h"

#if GGUFX_X86_KERNELS

#include <immintrin.h>

#include <cfloat>
#include <cmath>

namespace gguf::quantize {

namespace {

// Elements and levels fixed at compile time (8 x 3 for IQ1/IQ2, 4 x 8 for IQ3), so the terms stay
// in registers and the loops unroll.
template <int Elements, int Levels>
int bestAvx2(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, const float* levelValues)
{
    const NeighbourList& list = t.listOf(mapValue);
    // terms of element i at level l in lane l of terms[i]; with 3 levels lanes 3..7 are never indexed.
    __m256 values;
    if constexpr (Levels == 8)
        values = _mm256_loadu_ps(levelValues);
    else
        values = _mm256_setr_ps(levelValues[0], levelValues[1], levelValues[2], 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    const __m256 scaled = _mm256_mul_ps(_mm256_set1_ps(scale), values);
    __m256 terms[Elements];
    for (int i = 0; i < Elements; ++i) {
        const __m256 diff = _mm256_sub_ps(scaled, _mm256_set1_ps(xval[i]));
        terms[i] = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(weight[i]), diff), diff);
    }
    float bestD2 = FLT_MAX;
    int best = -1;
    constexpr int kBits = Levels == 8 ? 3 : 2;
    const __m256i levelMask = _mm256_set1_epi32((1 << kBits) - 1);
    const std::uint16_t* block = t.neighbourLevels.data() + list.blocks;
    for (std::uint32_t b = 0; b < list.count; b += 8, block += 8) {
        const __m256i packed = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block)));
        __m256 d2 = _mm256_setzero_ps();
        for (int i = 0; i < Elements; ++i) {
            const __m256i level = _mm256_and_si256(_mm256_srli_epi32(packed, kBits * i), levelMask);
            d2 = _mm256_add_ps(d2, _mm256_permutevar8x32_ps(terms[i], level));
        }
        const std::uint32_t lanes = list.count - b < 8 ? list.count - b : 8;
        const __m256 beats = _mm256_cmp_ps(d2, _mm256_set1_ps(bestD2), _CMP_LT_OQ);
        const int beatMask = _mm256_movemask_ps(beats) & ((1 << lanes) - 1);
        if (beatMask == 0)
            continue;
        // A lane-by-lane first-wins walk ends on the first lane holding the least of the lanes
        // that beat the best so far (NaN never beats it, ties keep the earlier lane).
        __m256 m = _mm256_blendv_ps(_mm256_set1_ps(INFINITY), d2, beats);
        m = _mm256_min_ps(m, _mm256_permute2f128_ps(m, m, 1));
        m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
        m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
        const int atMin = _mm256_movemask_ps(_mm256_cmp_ps(d2, m, _CMP_EQ_OQ)) & beatMask;
        bestD2 = _mm256_cvtss_f32(m);
        best = int(b) + __builtin_ctz(static_cast<unsigned>(atMin));
    }
    return t.neighbours[list.first + std::uint32_t(best < 0 ? 0 : best)];
}

int bestAvx2Any(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, const float* levelValues)
{
    if (t.elements == 4)
        return bestAvx2<4, 8>(t, mapValue, xval, weight, scale, levelValues);
    return bestAvx2<8, 3>(t, mapValue, xval, weight, scale, levelValues);
}

}  // namespace

using BestNeighbourFn = int (*)(const GridTables&, int, const float*, const float*, float, const float*);
BestNeighbourFn bestGridNeighbourAvx2()
{
    return bestAvx2Any;
}

}  // namespace gguf::quantize

#endif
