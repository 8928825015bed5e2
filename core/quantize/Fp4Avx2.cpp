#include "quantize/Fp4Avx2.h"

#include "kernels/Codebooks.h"
#include "kernels/KernelIsa.h"

#if GGUFX_X86_KERNELS && defined(__GNUC__)
#include <immintrin.h>  // this file is built with -mavx2 (core/CMakeLists.txt)
#define GGUFX_FP4_AVX2 1
#endif

namespace gguf::quantize {

#if GGUFX_FP4_AVX2
namespace {

// The candidates are 0, +v1..+v7 (indices 0-7) and 0, -v1..-v7 (8-15). For x >= 0 a negative
// candidate's error |-v e - x| = v e + x is never below its positive twin's, and for x < 0 the
// positive ones never beat index 0 (error |x|), while |-v e - x| = |v e - |x||: so ggml's scan
// over all 16 picks the same index as a scan of 0-7 against |x|, plus 8 when x < 0 and the
// winner is not 0 (0 comes first among the equal zeros).
void indicesAvx2(const float* x, int n, float e, std::uint8_t* indices)
{
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    float candidates[8];
    for (int i = 0; i < 8; ++i)
        candidates[i] = float(codebooks::kvalues_fp4[i]) * e;
    for (int j = 0; j < n; j += 8) {
        const __m256 xv = _mm256_loadu_ps(x + j);
        const __m256 ax = _mm256_and_ps(xv, absMask);
        __m256 best = _mm256_and_ps(_mm256_sub_ps(_mm256_set1_ps(candidates[0]), ax), absMask);
        __m256i index = _mm256_setzero_si256();
        for (int i = 1; i < 8; ++i) {
            const __m256 error = _mm256_and_ps(_mm256_sub_ps(_mm256_set1_ps(candidates[i]), ax), absMask);
            const __m256 better = _mm256_cmp_ps(error, best, _CMP_LT_OQ);
            best = _mm256_blendv_ps(best, error, better);
            index = _mm256_blendv_epi8(index, _mm256_set1_epi32(i), _mm256_castps_si256(better));
        }
        const __m256i negative = _mm256_castps_si256(_mm256_cmp_ps(xv, _mm256_setzero_ps(), _CMP_LT_OQ));
        const __m256i nonzero = _mm256_xor_si256(_mm256_cmpeq_epi32(index, _mm256_setzero_si256()), _mm256_set1_epi32(-1));
        index = _mm256_add_epi32(index, _mm256_and_si256(_mm256_and_si256(negative, nonzero), _mm256_set1_epi32(8)));
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), index);
        for (int g = 0; g < 8; ++g)
            indices[j + g] = static_cast<std::uint8_t>(lanes[g]);
    }
}

float absMax(const float* x, int n)
{
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 acc = _mm256_setzero_ps();
    for (int j = 0; j < n; j += 8)  // max_ps(a, b) = a > b ? a : b: a NaN |x| keeps acc
        acc = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + j), absMask), acc);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

void signBits(const float* x, int n, std::uint8_t* out)
{
    for (int j = 0; j < n; j += 8)
        out[j / 8] = static_cast<std::uint8_t>(_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + j), _mm256_setzero_ps(), _CMP_GE_OQ)));
}

bool roundTimes(const float* x, int n, float scale, std::int32_t* out)
{
    const __m256 s = _mm256_set1_ps(scale);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 limit = _mm256_set1_ps(1073741824.0f);  // 2^30: the rounded value fits an int32
    int ok = 0xFF;
    for (int j = 0; j < n; j += 8)
        ok &= _mm256_movemask_ps(_mm256_cmp_ps(_mm256_and_ps(_mm256_mul_ps(_mm256_loadu_ps(x + j), s), absMask), limit, _CMP_LT_OQ));
    if (ok != 0xFF)
        return false;
    for (int j = 0; j < n; j += 8) {
        const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + j), s);
        // Truncate, then step away from zero when the (exact) remainder is at least one half.
        const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m256 remainder = _mm256_and_ps(_mm256_sub_ps(v, t), absMask);
        const __m256 step = _mm256_or_ps(_mm256_and_ps(v, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(1.0f));
        const __m256 rounded = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(remainder, _mm256_set1_ps(0.5f), _CMP_GE_OQ), step));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), _mm256_cvttps_epi32(rounded));
    }
    return true;
}

}  // namespace
#endif

RoundTimesFn roundTimesAvx2()
{
#if GGUFX_FP4_AVX2
    static const RoundTimesFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? roundTimes : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

SignBitsFn signBitsAvx2()
{
#if GGUFX_FP4_AVX2
    static const SignBitsFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? signBits : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

AbsMaxFn absMaxAvx2()
{
#if GGUFX_FP4_AVX2
    static const AbsMaxFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? absMax : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

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

