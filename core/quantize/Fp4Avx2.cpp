#include "quantize/Fp4Avx2.h"

#include "kernels/Codebooks.h"
#include "kernels/KernelIsa.h"

#if GGUFX_X86_KERNELS && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2")
#include <immintrin.h>
#define GGUFX_FP4_AVX2 1
#endif

namespace gguf::quantize {

#if GGUFX_FP4_AVX2
namespace {

void indicesAvx2(const float* x, int n, float e, std::uint8_t* indices)
{
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    float candidates[16];
    for (int i = 0; i < 16; ++i)
        candidates[i] = float(codebooks::kvalues_fp4[i]) * e;
    for (int j = 0; j < n; j += 8) {
        const __m256 xv = _mm256_loadu_ps(x + j);
        __m256 best = _mm256_and_ps(_mm256_sub_ps(_mm256_set1_ps(candidates[0]), xv), absMask);
        __m256i index = _mm256_setzero_si256();
        for (int i = 1; i < 16; ++i) {
            const __m256 error = _mm256_and_ps(_mm256_sub_ps(_mm256_set1_ps(candidates[i]), xv), absMask);
            const __m256 better = _mm256_cmp_ps(error, best, _CMP_LT_OQ);
            best = _mm256_blendv_ps(best, error, better);
            index = _mm256_blendv_epi8(index, _mm256_set1_epi32(i), _mm256_castps_si256(better));
        }
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), index);
        for (int g = 0; g < 8; ++g)
            indices[j + g] = static_cast<std::uint8_t>(lanes[g]);
    }
}

}  // namespace
#endif

Fp4IndicesFn fp4IndicesAvx2()
{
#if GGUFX_FP4_AVX2
    static const Fp4IndicesFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? indicesAvx2 : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

}  // namespace gguf::quantize

#if GGUFX_FP4_AVX2
#pragma GCC pop_options
#endif
