#include "core/quantize/Fp4Avx2.h"

#include "core/kernels/Codebooks.h"
#include "core/kernels/KernelIsa.h"

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

// f32 -> f16 by F16C (round to nearest even): ggml's conversion for every finite value, and the
// ternary blocks below only store finite ones.
void storeHalf(std::uint8_t* dst, float value)
{
    // The vector form of _cvtss_sh (the same vcvtps2ph), whose clang macro is a C99 compound literal.
    const auto bits = static_cast<unsigned short>(
        _mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(value), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), 0));
    dst[0] = static_cast<std::uint8_t>(bits & 0xFF);
    dst[1] = static_cast<std::uint8_t>(bits >> 8);
}

// A 256-element block's absmax and its inverse, or false when the block needs the scalar path
// (a NaN or infinite value, or 1 / absmax not finite).
bool ternaryScale(const float* x, float* d, float* id)
{
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 infinity = _mm256_set1_ps(__builtin_inff());
    __m256 acc = _mm256_setzero_ps();
    __m256 finite = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    for (int j = 0; j < 256; j += 8) {
        // The next block but one, a line per two loads: the hardware prefetcher stops at each
        // 4 KiB page and falls behind a quantizer this fast (prefetches never fault).
        if (j % 16 == 0)
            _mm_prefetch(reinterpret_cast<const char*>(x + 512 + j), _MM_HINT_T0);
        const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + j), absMask);
        finite = _mm256_and_ps(finite, _mm256_cmp_ps(a, infinity, _CMP_LT_OQ));
        acc = _mm256_max_ps(acc, a);
    }
    if (_mm256_movemask_ps(finite) != 0xFF)
        return false;
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    *d = _mm_cvtss_f32(h);
    *id = *d != 0.0f ? 1.0f / *d : 0.0f;
    return *id < __builtin_inff();
}

// lroundf(x * id) + 1 as a float 0, 1 or 2: |x * id| <= 1 (plus an ulp), so lroundf gives +-1
// exactly when |x * id| >= 0.5.
__m256 ternaryDigit(const float* x, __m256 id)
{
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), id);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 up = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_set1_ps(0.5f), _CMP_GE_OQ), one);
    const __m256 down = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_set1_ps(-0.5f), _CMP_LE_OQ), one);
    return _mm256_sub_ps(_mm256_add_ps(one, up), down);
}

// Five base-3 digits (exact small integers in float) to ggml's byte ceil(q * 256 / 243):
// (q * 256 + 242) / 243 as (t * 8631) >> 21, exact for every q in 0..242 (checked exhaustively).
__m256i ternaryByte(__m256 q)
{
    const __m256i t = _mm256_add_epi32(_mm256_slli_epi32(_mm256_cvttps_epi32(q), 8), _mm256_set1_epi32(242));
    return _mm256_srli_epi32(_mm256_mullo_epi32(t, _mm256_set1_epi32(8631)), 21);
}

// 32 int32 values (0..255) in four vectors to 32 bytes in order.
void storeBytes32(const __m256i (&v)[4], std::uint8_t* out)
{
    const __m256i words = _mm256_packus_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
    const __m256i ordered = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), ordered);
}

__m256 fiveDigits(const float* x, int stride, __m256 id)
{
    const __m256 three = _mm256_set1_ps(3.0f);
    __m256 q = ternaryDigit(x, id);
    for (int n = 1; n < 5; ++n)
        q = _mm256_add_ps(_mm256_mul_ps(q, three), ternaryDigit(x + n * stride, id));
    return q;
}

// TQ1_0 (quantizeTQ1_0Scalar): qs[m] from x[m + 32n] (m < 32), qs[32 + m] from x[160 + m + 16n]
// (m < 16), qh[j] from x[240 + j + 4n] (four digits, then one more factor of 3).
void tq1_0(const float* x, std::uint8_t* dst, std::size_t blockCount, TernaryBlocksFn scalarBlocks)
{
    constexpr std::size_t kBytes = 54;
    for (std::size_t b = 0; b < blockCount; ++b, x += 256, dst += kBytes) {
        float d = 0.0f;
        float inverse = 0.0f;
        if (!ternaryScale(x, &d, &inverse)) {
            scalarBlocks(x, dst, 1);
            continue;
        }
        const __m256 id = _mm256_set1_ps(inverse);
        __m256i q[4];
        for (int k = 0; k < 4; ++k)
            q[k] = ternaryByte(fiveDigits(x + 8 * k, 32, id));
        storeBytes32(q, dst);
        const __m256i q0 = ternaryByte(fiveDigits(x + 160, 16, id));
        const __m256i q1 = ternaryByte(fiveDigits(x + 168, 16, id));
        const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q0), _mm256_extracti128_si256(q0, 1));
        const __m128i w2 = _mm_packs_epi32(_mm256_castsi256_si128(q1), _mm256_extracti128_si256(q1, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 32), _mm_packus_epi16(w, w2));
        // The last 16 elements: digits n = 0, 1 in the halves of the first vector, 2, 3 in the second.
        const __m256 a = ternaryDigit(x + 240, id);
        const __m256 c = ternaryDigit(x + 248, id);
        const __m128 three = _mm_set1_ps(3.0f);
        __m128 h = _mm_add_ps(_mm_mul_ps(_mm256_castps256_ps128(a), three), _mm256_extractf128_ps(a, 1));
        h = _mm_add_ps(_mm_mul_ps(h, three), _mm256_castps256_ps128(c));
        h = _mm_add_ps(_mm_mul_ps(h, three), _mm256_extractf128_ps(c, 1));
        h = _mm_mul_ps(h, three);
        const __m128i t = _mm_add_epi32(_mm_slli_epi32(_mm_cvttps_epi32(h), 8), _mm_set1_epi32(242));
        const __m128i qh = _mm_srli_epi32(_mm_mullo_epi32(t, _mm_set1_epi32(8631)), 21);
        const __m128i qhBytes = _mm_packus_epi16(_mm_packs_epi32(qh, qh), qh);
        const int packed = _mm_cvtsi128_si32(qhBytes);
        for (int i = 0; i < 4; ++i)
            dst[48 + i] = static_cast<std::uint8_t>(static_cast<unsigned>(packed) >> (8 * i));
        storeHalf(dst + 52, d);
    }
}

// TQ2_0 (quantizeTQ2_0Scalar): qs[32h + m] holds the digits of x[128h + m + 32n] at bits 2n.
void tq2_0(const float* x, std::uint8_t* dst, std::size_t blockCount, TernaryBlocksFn scalarBlocks)
{
    constexpr std::size_t kBytes = 66;
    for (std::size_t b = 0; b < blockCount; ++b, x += 256, dst += kBytes) {
        float d = 0.0f;
        float inverse = 0.0f;
        if (!ternaryScale(x, &d, &inverse)) {
            scalarBlocks(x, dst, 1);
            continue;
        }
        const __m256 id = _mm256_set1_ps(inverse);
        for (int h = 0; h < 2; ++h) {
            const float* xs = x + 128 * h;
            __m256i q[4];
            for (int k = 0; k < 4; ++k) {
                __m256 sum = ternaryDigit(xs + 8 * k + 96, id);
                for (int n = 2; n >= 0; --n)
                    sum = _mm256_add_ps(_mm256_mul_ps(sum, _mm256_set1_ps(4.0f)), ternaryDigit(xs + 8 * k + 32 * n, id));
                q[k] = _mm256_cvttps_epi32(sum);
            }
            storeBytes32(q, dst + 32 * h);
        }
        storeHalf(dst + 64, d);
    }
}

}  // namespace
#endif

TernaryAvx2Fn tq1_0Avx2()
{
#if GGUFX_FP4_AVX2
    static const TernaryAvx2Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? tq1_0 : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

TernaryAvx2Fn tq2_0Avx2()
{
#if GGUFX_FP4_AVX2
    static const TernaryAvx2Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? tq2_0 : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

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

