#include "quantize/GridNeighbours.h"

#include "kernels/KernelIsa.h"

#include <cfloat>

#if GGUFX_X86_KERNELS && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2")
#include <immintrin.h>
#define GGUFX_GRID_NEIGHBOURS_AVX2 1
#endif

namespace gguf::quantize {

namespace {

// Continues a first-wins search over neighbours [from, count) from the state (bestD2, best).
void scalarScan(const GridTables& t, const std::uint16_t* neighbours, int from, int count, int elements, const float* xval,
                const float* weight, float scale, float& bestD2, int& best)
{
    for (int j = from; j < count; ++j) {
        const auto* pg = reinterpret_cast<const std::int8_t*>(&t.grid[neighbours[j]]);
        float d2 = 0.0f;
        for (int i = 0; i < elements; ++i) {
            const float diff = scale * float(pg[i]) - xval[i];
            d2 += weight[i] * diff * diff;
        }
        if (d2 < bestD2) {
            bestD2 = d2;
            best = neighbours[j];
        }
    }
}

int scalarBest(const GridTables& t, const std::uint16_t* neighbours, int count, int elements, const float* xval,
               const float* weight, float scale)
{
    float bestD2 = FLT_MAX;
    int best = -1;
    scalarScan(t, neighbours, 0, count, elements, xval, weight, scale, bestD2, best);
    return best;
}

#if GGUFX_GRID_NEIGHBOURS_AVX2
int avx2Best(const GridTables& t, const std::uint16_t* neighbours, int count, int elements, const float* xval, const float* weight,
             float scale)
{
    const __m256 s = _mm256_set1_ps(scale);
    float bestD2 = FLT_MAX;
    int best = -1;
    int j = 0;
    for (; j + 8 <= count; j += 8) {
        // Entry bytes of eight neighbours: element i of lane g is byte i of t.grid[neighbours[j + g]].
        alignas(32) std::int32_t lo[8];
        alignas(32) std::int32_t hi[8];
        for (int g = 0; g < 8; ++g) {
            const std::uint64_t entry = t.grid[neighbours[j + g]];
            lo[g] = static_cast<std::int32_t>(entry & 0xFFFFFFFFu);
            hi[g] = static_cast<std::int32_t>(entry >> 32);
        }
        const __m256i low = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
        const __m256i high = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
        __m256 d2 = _mm256_setzero_ps();
        for (int i = 0; i < elements; ++i) {
            const __m256i word = i < 4 ? low : high;
            // Sign-extend byte (i % 4) of each lane: shift it to the top, then arithmetically down.
            const __m256i byte = _mm256_srai_epi32(_mm256_slli_epi32(word, 24 - 8 * (i % 4)), 24);
            const __m256 diff = _mm256_sub_ps(_mm256_mul_ps(s, _mm256_cvtepi32_ps(byte)), _mm256_set1_ps(xval[i]));
            d2 = _mm256_add_ps(d2, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(weight[i]), diff), diff));
        }
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, d2);
        for (int g = 0; g < 8; ++g) {
            if (lanes[g] < bestD2) {
                bestD2 = lanes[g];
                best = neighbours[j + g];
            }
        }
    }
    scalarScan(t, neighbours, j, count, elements, xval, weight, scale, bestD2, best);  // the tail, in order
    return best;
}
#endif

}  // namespace

int bestGridNeighbour(const GridTables& t, const std::uint16_t* neighbours, int count, int elements, const float* xval,
                      const float* weight, float scale)
{
#if GGUFX_GRID_NEIGHBOURS_AVX2
    static const bool useAvx2 = preferredKernelIsa() == KernelIsa::Avx2;
    if (useAvx2 && count >= 8)  // short lists (most of IQ3's) gain nothing from lanes
        return avx2Best(t, neighbours, count, elements, xval, weight, scale);
#endif
    return scalarBest(t, neighbours, count, elements, xval, weight, scale);
}

}  // namespace gguf::quantize

#if GGUFX_GRID_NEIGHBOURS_AVX2
#pragma GCC pop_options
#endif
