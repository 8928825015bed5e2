// AVX2 form of makeWeightedAsymmetricLevels over eight lane-interleaved groups
// (WeightedSearch8.h). Every step mirrors WeightedSearch.cpp in the same operand order; branches
// become lane masks. The file is compiled with -mavx2 (no FMA: a fused
// multiply-add would round once where ggml rounds twice) and only called on AVX2 CPUs.

#include "core/quantize/WeightedSearch8.h"

#include "core/kernels/KernelIsa.h"

#if GGUFX_X86_KERNELS && defined(__GNUC__)
#include <immintrin.h>  // this file is built with -mavx2 (core/CMakeLists.txt)
#define GGUFX_WEIGHTED_SEARCH8 1
#endif

namespace gguf::quantize {

#if GGUFX_WEIGHTED_SEARCH8
namespace {

__m256i nearestInt8(__m256 x)
{
    const __m256i bits = _mm256_castps_si256(_mm256_add_ps(x, _mm256_set1_ps(12582912.0f)));
    return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x00400000));
}

__m256 select(__m256 mask, __m256 a, __m256 b)
{
    return _mm256_blendv_ps(b, a, mask);
}

__m256i select(__m256 mask, __m256i a, __m256i b)
{
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b), _mm256_castsi256_ps(a), mask));
}

void searchAvx2(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* scalesOut, float* minsOut,
                float rmin, float rdelta, int nstep)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256i high = _mm256_set1_epi32(nmax);
    const __m256 highF = _mm256_set1_ps(float(nmax));
    __m256 min = _mm256_loadu_ps(x);
    __m256 max = min;
    __m256 sumW = _mm256_loadu_ps(weights);
    __m256 sumX = _mm256_mul_ps(sumW, min);
    for (int i = 1; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        min = _mm256_min_ps(xi, min);  // (x < min) ? x : min
        max = _mm256_max_ps(xi, max);  // (x > max) ? x : max
        const __m256 w = _mm256_loadu_ps(weights + 8 * i);
        sumW = _mm256_add_ps(sumW, w);
        sumX = _mm256_add_ps(sumX, _mm256_mul_ps(w, xi));
    }
    min = select(_mm256_cmp_ps(min, zero, _CMP_GT_OQ), zero, min);
    const __m256 flat = _mm256_cmp_ps(max, min, _CMP_LE_OQ);  // max <= min: all levels 0

    __m256i best[32];
    __m256i current[32];
    __m256 iscale = _mm256_div_ps(highF, _mm256_sub_ps(max, min));
    __m256 scale = _mm256_div_ps(_mm256_set1_ps(1.0f), iscale);
    __m256 bestError = zero;
    for (int i = 0; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        const __m256i l = nearestInt8(_mm256_mul_ps(iscale, _mm256_sub_ps(xi, min)));
        best[i] = _mm256_max_epi32(_mm256_setzero_si256(), _mm256_min_epi32(high, l));
        const __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(scale, _mm256_cvtepi32_ps(best[i])), min), xi);
        bestError = _mm256_add_ps(bestError, _mm256_mul_ps(_mm256_loadu_ps(weights + 8 * i), _mm256_mul_ps(diff, diff)));
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = _mm256_div_ps(_mm256_set1_ps(rmin + rdelta * float(is) + float(nmax)), _mm256_sub_ps(max, min));
        __m256 sumL = zero;
        __m256 sumL2 = zero;
        __m256 sumXL = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 xi = _mm256_loadu_ps(x + 8 * i);
            // v > 0 ? nearest_int(MIN(v, nmax)) : 0, NaN included (the comparison is ordered).
            const __m256 v = _mm256_mul_ps(iscale, _mm256_sub_ps(xi, min));
            const __m256i rounded = nearestInt8(_mm256_min_ps(v, highF));
            current[i] = _mm256_and_si256(rounded, _mm256_castps_si256(_mm256_cmp_ps(v, zero, _CMP_GT_OQ)));
            const __m256 l = _mm256_cvtepi32_ps(current[i]);
            const __m256 wl = _mm256_mul_ps(_mm256_loadu_ps(weights + 8 * i), l);
            sumL = _mm256_add_ps(sumL, wl);
            sumL2 = _mm256_add_ps(sumL2, _mm256_mul_ps(wl, l));
            sumXL = _mm256_add_ps(sumXL, _mm256_mul_ps(wl, xi));
        }
        const __m256 D = _mm256_sub_ps(_mm256_mul_ps(sumW, sumL2), _mm256_mul_ps(sumL, sumL));
        const __m256 solvable = _mm256_cmp_ps(D, zero, _CMP_GT_OQ);
        if (_mm256_movemask_ps(solvable) == 0)
            continue;
        __m256 thisScale = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sumW, sumXL), _mm256_mul_ps(sumX, sumL)), D);
        __m256 thisMin = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sumL2, sumX), _mm256_mul_ps(sumL, sumXL)), D);
        const __m256 positiveMin = _mm256_cmp_ps(thisMin, zero, _CMP_GT_OQ);
        thisMin = select(positiveMin, zero, thisMin);
        thisScale = select(positiveMin, _mm256_div_ps(sumXL, sumL2), thisScale);
        __m256 error = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 xi = _mm256_loadu_ps(x + 8 * i);
            const __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(thisScale, _mm256_cvtepi32_ps(current[i])), thisMin), xi);
            error = _mm256_add_ps(error, _mm256_mul_ps(_mm256_loadu_ps(weights + 8 * i), _mm256_mul_ps(diff, diff)));
        }
        const __m256 better = _mm256_andnot_ps(flat, _mm256_and_ps(solvable, _mm256_cmp_ps(error, bestError, _CMP_LT_OQ)));
        if (_mm256_movemask_ps(better) == 0)
            continue;
        for (int i = 0; i < n; ++i)
            best[i] = select(better, current[i], best[i]);
        bestError = select(better, error, bestError);
        scale = select(better, thisScale, scale);
        min = select(better, thisMin, min);
    }
    const __m256i flatMask = _mm256_castps_si256(flat);
    for (int i = 0; i < n; ++i) {
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_andnot_si256(flatMask, best[i]));
        for (int g = 0; g < 8; ++g)
            L[8 * i + g] = static_cast<std::uint8_t>(lanes[g]);
    }
    _mm256_storeu_ps(scalesOut, select(flat, zero, scale));
    _mm256_storeu_ps(minsOut, _mm256_xor_ps(min, _mm256_set1_ps(-0.0f)));  // *minOut = -min
}

void symmetricAvx2(int n, int nmax, const float* x, const float* weights, std::int8_t* L, float* scalesOut)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256i low = _mm256_set1_epi32(-nmax);
    const __m256i high = _mm256_set1_epi32(nmax - 1);
    const auto level = [&](__m256 iscale, __m256 xi) {
        return _mm256_max_epi32(low, _mm256_min_epi32(high, nearestInt8(_mm256_mul_ps(iscale, xi))));
    };
    __m256 amax = zero;
    __m256 max = zero;
    for (int i = 0; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        const __m256 ax = _mm256_and_ps(xi, absMask);
        const __m256 larger = _mm256_cmp_ps(ax, amax, _CMP_GT_OQ);
        amax = select(larger, ax, amax);
        max = select(larger, xi, max);
    }
    const __m256 flat = _mm256_cmp_ps(amax, _mm256_set1_ps(1e-15f), _CMP_LT_OQ);

    __m256i best[32];
    __m256i current[32];
    __m256 iscale = _mm256_div_ps(_mm256_set1_ps(float(-nmax)), max);
    __m256 sumlx = zero;
    __m256 suml2 = zero;
    for (int i = 0; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        best[i] = level(iscale, xi);
        const __m256 l = _mm256_cvtepi32_ps(best[i]);
        const __m256 w = _mm256_loadu_ps(weights + 8 * i);
        sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_mul_ps(w, xi), l));
        suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, l), l));
    }
    __m256 scale = select(_mm256_cmp_ps(suml2, zero, _CMP_NEQ_UQ), _mm256_div_ps(sumlx, suml2), zero);
    __m256 bestFit = _mm256_mul_ps(scale, sumlx);
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = _mm256_div_ps(_mm256_set1_ps(-(float(nmax) + 0.1f * float(is))), max);
        sumlx = zero;
        suml2 = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 xi = _mm256_loadu_ps(x + 8 * i);
            current[i] = level(iscale, xi);
            const __m256 l = _mm256_cvtepi32_ps(current[i]);
            const __m256 w = _mm256_loadu_ps(weights + 8 * i);
            sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_mul_ps(w, xi), l));
            suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, l), l));
        }
        const __m256 better = _mm256_and_ps(_mm256_cmp_ps(suml2, zero, _CMP_GT_OQ),
                                            _mm256_cmp_ps(_mm256_mul_ps(sumlx, sumlx), _mm256_mul_ps(bestFit, suml2), _CMP_GT_OQ));
        if (_mm256_movemask_ps(better) == 0)
            continue;
        for (int i = 0; i < n; ++i)
            best[i] = select(better, current[i], best[i]);
        scale = select(better, _mm256_div_ps(sumlx, suml2), scale);
        bestFit = select(better, _mm256_mul_ps(scale, sumlx), bestFit);
    }
    // Below GROUP_MAX_EPS a group is all zero: levels 0 (not 0 + nmax) and scale 0.
    const __m256i flatMask = _mm256_castps_si256(flat);
    const __m256i offset = _mm256_set1_epi32(nmax);
    for (int i = 0; i < n; ++i) {
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_andnot_si256(flatMask, _mm256_add_epi32(best[i], offset)));
        for (int g = 0; g < 8; ++g)
            L[8 * i + g] = static_cast<std::int8_t>(lanes[g]);
    }
    _mm256_storeu_ps(scalesOut, select(flat, zero, scale));
}

}  // namespace
#endif

WeightedAsymmetricSearch8Fn weightedAsymmetricSearch8()
{
#if GGUFX_WEIGHTED_SEARCH8
    static const WeightedAsymmetricSearch8Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? searchAvx2 : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

WeightedSymmetricSearch8Fn weightedSymmetricSearch8()
{
#if GGUFX_WEIGHTED_SEARCH8
    static const WeightedSymmetricSearch8Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? symmetricAvx2 : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

}  // namespace gguf::quantize
