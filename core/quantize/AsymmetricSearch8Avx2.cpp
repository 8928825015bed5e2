// AVX2 form of makeAsymmetricLevels over eight lane-interleaved groups (AsymmetricSearch8.h).
// Every line mirrors a line of ScaleSearch.cpp, in the same operand order; branches become
// lane masks. Compiled with -mavx2 only (no FMA: a fused multiply-add would round once where
// ggml rounds twice), and called only when the CPU has AVX2.

#include "core/quantize/AsymmetricSearch8.h"

#include <immintrin.h>

namespace gguf::quantize {

namespace {

// ggml's nearest_int, lane by lane: the same add of 1.5 * 2^23 and the same bit extraction.
__m256i nearestInt8(__m256 x)
{
    const __m256i bits = _mm256_castps_si256(_mm256_add_ps(x, _mm256_set1_ps(12582912.0f)));
    return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x00400000));
}

__m256i clampLevel8(__m256i l, __m256i high)
{
    return _mm256_max_epi32(_mm256_setzero_si256(), _mm256_min_epi32(high, l));
}

__m256 errorOf8(__m256 diff, bool useMad)
{
    return useMad ? _mm256_and_ps(diff, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))) : _mm256_mul_ps(diff, diff);
}

// a where mask, else b.
__m256 select(__m256 mask, __m256 a, __m256 b)
{
    return _mm256_blendv_ps(b, a, mask);
}

__m256i select(__m256 mask, __m256i a, __m256i b)
{
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b), _mm256_castsi256_ps(a), mask));
}

// Groups of at most 32 (Q4_K's and Q5_K's sub-blocks).
void searchAvx2(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* scalesOut, float* minsOut,
                float rmin, float rdelta, int nstep, bool useMad)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256i high = _mm256_set1_epi32(nmax);
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
    const __m256 flat = _mm256_cmp_ps(max, min, _CMP_EQ_OQ);

    __m256i best[32];
    __m256i current[32];
    __m256 iscale = _mm256_div_ps(_mm256_set1_ps(float(nmax)), _mm256_sub_ps(max, min));
    __m256 scale = _mm256_div_ps(_mm256_set1_ps(1.0f), iscale);
    __m256 bestError = zero;
    for (int i = 0; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        best[i] = clampLevel8(nearestInt8(_mm256_mul_ps(iscale, _mm256_sub_ps(xi, min))), high);
        const __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(scale, _mm256_cvtepi32_ps(best[i])), min), xi);
        bestError = _mm256_add_ps(bestError, _mm256_mul_ps(_mm256_loadu_ps(weights + 8 * i), errorOf8(diff, useMad)));
    }
    // As in ggml, `min` moves to each better solution and the later steps search around it.
    for (int is = 0; is <= nstep; ++is) {
        iscale = _mm256_div_ps(_mm256_set1_ps(rmin + rdelta * float(is) + float(nmax)), _mm256_sub_ps(max, min));
        __m256 sumL = zero;
        __m256 sumL2 = zero;
        __m256 sumXL = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 xi = _mm256_loadu_ps(x + 8 * i);
            current[i] = clampLevel8(nearestInt8(_mm256_mul_ps(iscale, _mm256_sub_ps(xi, min))), high);
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
            error = _mm256_add_ps(error, _mm256_mul_ps(_mm256_loadu_ps(weights + 8 * i), errorOf8(diff, useMad)));
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

    // A flat group (max == min) keeps levels 0 and scale 0, as the scalar search returns early.
    const __m256i flatMask = _mm256_castps_si256(flat);
    for (int i = 0; i < n; ++i) {
        const __m256i levels = _mm256_andnot_si256(flatMask, best[i]);
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), levels);
        for (int g = 0; g < 8; ++g)
            L[8 * i + g] = static_cast<std::uint8_t>(lanes[g]);
    }
    _mm256_storeu_ps(scalesOut, select(flat, zero, scale));
    // -min, as the scalar search's *minOut = -min (a sign flip, not a subtraction from zero).
    _mm256_storeu_ps(minsOut, _mm256_xor_ps(min, _mm256_set1_ps(-0.0f)));
}

// makeSymmetricLevels, lane by lane (ScaleSearch.cpp); groups of at most 16 (Q6_K's).
void symmetricSearchAvx2(int n, int nmax, const float* x, std::int8_t* L, float* scalesOut)
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

    __m256i best[16];
    __m256 iscale = _mm256_div_ps(_mm256_set1_ps(float(-nmax)), max);
    __m256 sumlx = zero;
    __m256 suml2 = zero;
    for (int i = 0; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        best[i] = level(iscale, xi);
        const __m256 l = _mm256_cvtepi32_ps(best[i]);
        const __m256 w = _mm256_mul_ps(xi, xi);
        sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_mul_ps(w, xi), l));
        suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, l), l));
    }
    __m256 scale = select(_mm256_cmp_ps(suml2, zero, _CMP_NEQ_UQ), _mm256_div_ps(sumlx, suml2), zero);
    __m256 bestFit = _mm256_mul_ps(scale, sumlx);
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = _mm256_div_ps(_mm256_set1_ps(-(float(nmax) + 0.1f * float(is))), max);
        __m256i current[16];
        sumlx = zero;
        suml2 = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 xi = _mm256_loadu_ps(x + 8 * i);
            current[i] = level(iscale, xi);
            const __m256 l = _mm256_cvtepi32_ps(current[i]);
            const __m256 w = _mm256_mul_ps(xi, xi);
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

    // A group whose largest magnitude is below ggml's GROUP_MAX_EPS is all zero: levels 0 (not
    // 0 + nmax) and scale 0.
    const __m256i flatMask = _mm256_castps_si256(flat);
    const __m256i offset = _mm256_set1_epi32(nmax);
    for (int i = 0; i < n; ++i) {
        const __m256i levels = _mm256_andnot_si256(flatMask, _mm256_add_epi32(best[i], offset));
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), levels);
        for (int g = 0; g < 8; ++g)
            L[8 * i + g] = static_cast<std::int8_t>(lanes[g]);
    }
    _mm256_storeu_ps(scalesOut, select(flat, zero, scale));
}

// makeRefinedSymmetricLevels, lane by lane (Q3_K's search; groups of at most 16). A lane whose
// sweep changed nothing would change nothing in later sweeps either (its state is the same), so
// sweeping on while other lanes still change is the scalar early exit.
void refinedSymmetricSearchAvx2(int n, int nmax, const float* x, std::int8_t* L, float* scalesOut)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256i low = _mm256_set1_epi32(-nmax);
    const __m256i high = _mm256_set1_epi32(nmax - 1);
    const auto clampLevel = [&](__m256i l) { return _mm256_max_epi32(low, _mm256_min_epi32(high, l)); };
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

    __m256i levels[16];
    const __m256 iscale = _mm256_div_ps(_mm256_set1_ps(float(-nmax)), max);
    __m256 sumlx = zero;
    __m256 suml2 = zero;
    for (int i = 0; i < n; ++i) {
        const __m256 xi = _mm256_loadu_ps(x + 8 * i);
        levels[i] = clampLevel(nearestInt8(_mm256_mul_ps(iscale, xi)));
        const __m256 l = _mm256_cvtepi32_ps(levels[i]);
        const __m256 w = _mm256_mul_ps(xi, xi);
        sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_mul_ps(w, xi), l));
        suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, l), l));
    }
    for (int attempt = 0; attempt < 5; ++attempt) {
        int changedLanes = 0;
        for (int i = 0; i < n; ++i) {
            const __m256 xi = _mm256_loadu_ps(x + 8 * i);
            const __m256 w = _mm256_mul_ps(xi, xi);
            const __m256 wx = _mm256_mul_ps(w, xi);
            const __m256 old = _mm256_cvtepi32_ps(levels[i]);
            __m256 slx = _mm256_sub_ps(sumlx, _mm256_mul_ps(wx, old));
            const __m256 positive = _mm256_cmp_ps(slx, zero, _CMP_GT_OQ);
            __m256 sl2 = _mm256_sub_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, old), old));
            const __m256i newLevel = clampLevel(nearestInt8(_mm256_div_ps(_mm256_mul_ps(xi, sl2), slx)));
            const __m256 moved = _mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(newLevel, levels[i]), _mm256_set1_epi32(-1)));
            const __m256 l = _mm256_cvtepi32_ps(newLevel);
            slx = _mm256_add_ps(slx, _mm256_mul_ps(wx, l));
            sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(w, l), l));
            const __m256 fits = _mm256_and_ps(_mm256_cmp_ps(sl2, zero, _CMP_GT_OQ),
                                              _mm256_cmp_ps(_mm256_mul_ps(_mm256_mul_ps(slx, slx), suml2),
                                                            _mm256_mul_ps(_mm256_mul_ps(sumlx, sumlx), sl2), _CMP_GT_OQ));
            const __m256 accept = _mm256_and_ps(_mm256_and_ps(positive, moved), fits);
            const int mask = _mm256_movemask_ps(accept);
            if (mask == 0)
                continue;
            changedLanes |= mask;
            levels[i] = select(accept, newLevel, levels[i]);
            sumlx = select(accept, slx, sumlx);
            suml2 = select(accept, sl2, suml2);
        }
        if (changedLanes == 0)
            break;
    }

    const __m256i flatMask = _mm256_castps_si256(flat);
    const __m256i offset = _mm256_set1_epi32(nmax);
    for (int i = 0; i < n; ++i) {
        const __m256i stored = _mm256_andnot_si256(flatMask, _mm256_add_epi32(levels[i], offset));
        alignas(32) std::int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), stored);
        for (int g = 0; g < 8; ++g)
            L[8 * i + g] = static_cast<std::int8_t>(lanes[g]);
    }
    const __m256 scale = select(_mm256_cmp_ps(suml2, zero, _CMP_GT_OQ), _mm256_div_ps(sumlx, suml2), zero);
    _mm256_storeu_ps(scalesOut, select(flat, zero, scale));
}

// interleaveGroups for eight groups, n a multiple of 8: one 8x8 transpose per eight elements
// (shuffles move bits, so NaN payloads and signed zeros come through unchanged).
void interleave8(const float* src, int n, float* out)
{
    for (int i0 = 0; i0 < n; i0 += 8) {
        __m256 r[8];
        for (int g = 0; g < 8; ++g)
            r[g] = _mm256_loadu_ps(src + g * n + i0);
        __m256 t[8];
        for (int k = 0; k < 4; ++k) {
            t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
        }
        __m256 u[8];
        for (int k = 0; k < 2; ++k) {
            u[4 * k] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], 0x44);
            u[4 * k + 1] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], 0xEE);
            u[4 * k + 2] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
            u[4 * k + 3] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xEE);
        }
        float* o = out + 8 * i0;
        for (int k = 0; k < 4; ++k) {
            _mm256_storeu_ps(o + 8 * k, _mm256_permute2f128_ps(u[k], u[k + 4], 0x20));
            _mm256_storeu_ps(o + 8 * (k + 4), _mm256_permute2f128_ps(u[k], u[k + 4], 0x31));
        }
    }
}

}  // namespace

Interleave8Fn interleave8Avx2()
{
    return interleave8;
}

SymmetricSearch8Fn refinedSymmetricSearch8Avx2()
{
    return refinedSymmetricSearchAvx2;
}

SymmetricSearch8Fn symmetricSearch8Avx2()
{
    return symmetricSearchAvx2;
}

AsymmetricSearch8Fn asymmetricSearch8Avx2()
{
    return searchAvx2;
}

}  // namespace gguf::quantize
