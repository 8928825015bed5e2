// The AVX2 neighbour search (GridNeighbours.h): 8 candidates per block in the lanes of one
// register. Each lane adds its candidate's terms in element order, as the scalar loop does,
// so every distance is the same float; a block is only walked lane by lane (first wins) when
// some lane beats the best so far.

#include "quantize/GridNeighbours.h"

#if GGUFX_X86_KERNELS

#include <immintrin.h>

#include <cfloat>

namespace gguf::quantize {

namespace {

int bestAvx2(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, const float* levelValues)
{
    const NeighbourList& list = t.listOf(mapValue);
    const int elements = t.elements;
    // terms of element i at level l in lane l of terms[i]; IQ2/IQ1 fill lanes 0..2 only (the
    // other lanes are never indexed).
    __m256 terms[8];
    float padded[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int l = 0; l < t.levels; ++l)
        padded[l] = levelValues[l];
    const __m256 scaled = _mm256_mul_ps(_mm256_set1_ps(scale), _mm256_loadu_ps(padded));
    for (int i = 0; i < elements; ++i) {
        const __m256 diff = _mm256_sub_ps(scaled, _mm256_set1_ps(xval[i]));
        terms[i] = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(weight[i]), diff), diff);
    }
    float bestD2 = FLT_MAX;
    int best = -1;
    const std::uint8_t* block = t.neighbourLevels.data() + list.blocks;
    for (std::uint32_t b = 0; b < list.count; b += 8, block += 8 * elements) {
        __m256 d2 = _mm256_setzero_ps();
        for (int i = 0; i < elements; ++i) {
            const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + 8 * i));
            d2 = _mm256_add_ps(d2, _mm256_permutevar8x32_ps(terms[i], _mm256_cvtepu8_epi32(bytes)));
        }
        if (_mm256_movemask_ps(_mm256_cmp_ps(d2, _mm256_set1_ps(bestD2), _CMP_LT_OQ)) == 0)
            continue;
        alignas(32) float lane[8];
        _mm256_store_ps(lane, d2);
        const std::uint32_t lanes = list.count - b < 8 ? list.count - b : 8;
        for (std::uint32_t k = 0; k < lanes; ++k)
            if (lane[k] < bestD2) {
                bestD2 = lane[k];
                best = int(b + k);
            }
    }
    return t.neighbours[list.first + std::uint32_t(best < 0 ? 0 : best)];
}

}  // namespace

using BestNeighbourFn = int (*)(const GridTables&, int, const float*, const float*, float, const float*);
BestNeighbourFn bestGridNeighbourAvx2()
{
    return bestAvx2;
}

}  // namespace gguf::quantize

#endif
