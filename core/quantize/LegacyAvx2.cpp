// The AVX2 legacy bodies: built with -mavx2 -mf16c (no FMA), reached only through legacyAvx2().

#include "core/quantize/LegacyAvx2.h"

#include "core/quantize/QuantizeCommon.h"

#include <immintrin.h>

namespace gguf::quantize {

namespace {

constexpr int kBlock = 32;

// The four vectors of a block, |x| of each, and whether all 32 values are finite.
struct BlockVectors {
    __m256 x[4];
    __m256 ax[4];
    bool finite;
};

BlockVectors loadBlock(const float* src)
{
    BlockVectors b;
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 infinity = _mm256_set1_ps(__builtin_inff());
    int finite = 0xFF;
    // The quantizers stream their input once, faster than the hardware prefetcher (which stops
    // at each 4 KiB page) brings it in: ask for the block 2 KiB ahead.
    _mm_prefetch(reinterpret_cast<const char*>(src + 512), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(src + 528), _MM_HINT_T0);
    for (int k = 0; k < 4; ++k) {
        b.x[k] = _mm256_loadu_ps(src + 8 * k);
        b.ax[k] = _mm256_and_ps(b.x[k], absMask);
        finite &= _mm256_movemask_ps(_mm256_cmp_ps(b.ax[k], infinity, _CMP_LT_OQ));
    }
    b.finite = finite == 0xFF;
    return b;
}

// f32 -> f16 by F16C, round to nearest even: ggml's conversion for every finite value, and only
// finite blocks get here (a scale of a finite block may overflow to infinity, which both give).
void storeHalf(std::uint8_t* dst, float value)
{
    // The vector form of _cvtss_sh (the same vcvtps2ph), whose clang macro is a C99 compound literal.
    const auto bits = static_cast<unsigned short>(
        _mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(value), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), 0));
    dst[0] = static_cast<std::uint8_t>(bits & 0xFF);
    dst[1] = static_cast<std::uint8_t>(bits >> 8);
}

float horizontalMax(const __m256 (&ax)[4])
{
    __m256 m = _mm256_max_ps(_mm256_max_ps(ax[0], ax[1]), _mm256_max_ps(ax[2], ax[3]));
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

// std::round (half away from zero), exactly: truncate, then step away from zero when the
// (exact) remainder is at least one half.
__m256 roundHalfAway(__m256 v)
{
    const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 remainder = _mm256_and_ps(_mm256_sub_ps(v, t), absMask);
    const __m256 step = _mm256_or_ps(_mm256_and_ps(v, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(1.0f));  // ±1
    return _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(remainder, _mm256_set1_ps(0.5f), _CMP_GE_OQ), step));
}

void q8_0(const float* src, std::uint8_t* dst, std::size_t blockCount, BlocksFn scalarBlocks)
{
    constexpr std::size_t kBytes = 34;  // f16 d + 32 int8
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += kBytes) {
        const BlockVectors v = loadBlock(src);
        if (!v.finite) {
            scalarBlocks(src, dst, 1);
            continue;
        }
        const float amax = horizontalMax(v.ax);
        const float d = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeHalf(dst, d);
        const __m256 scale = _mm256_set1_ps(id);
        __m256i q[4];
        for (int k = 0; k < 4; ++k)
            q[k] = _mm256_cvttps_epi32(roundHalfAway(_mm256_mul_ps(v.x[k], scale)));  // |q| <= 127: no saturation below
        const __m256i words = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        const __m256i ordered = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2), ordered);
    }
}

void q4_0(const float* src, std::uint8_t* dst, std::size_t blockCount, BlocksFn scalarBlocks)
{
    constexpr std::size_t kBytes = 18;  // f16 d + 16 bytes of nibbles
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += kBytes) {
        const BlockVectors v = loadBlock(src);
        if (!v.finite) {
            scalarBlocks(src, dst, 1);
            continue;
        }
        // ggml keeps the first element of largest magnitude, with its sign.
        const float amax = horizontalMax(v.ax);
        const __m256 target = _mm256_set1_ps(amax);
        std::uint32_t hits = 0;
        for (int k = 0; k < 4; ++k)
            hits |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v.ax[k], target, _CMP_EQ_OQ))) << (8 * k);
        const float max = amax == 0.0f ? 0.0f : src[__builtin_ctz(hits)];  // ggml's max starts at +0
        const float d = max / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeHalf(dst, d);
        // x * id + 8.5 lies in [0.5, 16.5] for finite blocks, so the truncation is a plain int.
        const __m256 scale = _mm256_set1_ps(id);
        const __m256 half = _mm256_set1_ps(8.5f);
        const __m256i fifteen = _mm256_set1_epi32(15);
        __m256i level[4];
        for (int k = 0; k < 4; ++k)
            level[k] = _mm256_min_epi32(fifteen, _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(v.x[k], scale), half)));
        // Byte j: element j in the low nibble, j + 16 in the high one.
        const __m256i lo = _mm256_packs_epi32(level[0], level[1]);  // elements 0-15 as words (lane-interleaved)
        const __m256i hi = _mm256_packs_epi32(level[2], level[3]);  // elements 16-31
        const __m256i bytes = _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4));
        // Words are lane-interleaved (0-3, 8-11 | 4-7, 12-15): put them in order, narrow, gather.
        const __m256i words = _mm256_permute4x64_epi64(bytes, 0xD8);
        const __m256i ordered = _mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), 0xD8);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2), _mm256_castsi256_si128(ordered));
    }
}

// Bytes j = level j (low nibble) | level j + 16 (high nibble), from four vectors of eight levels
// (only their low 4 bits are kept).
void storeNibbles(const __m256i (&level)[4], std::uint8_t* qs)
{
    const __m256i low4 = _mm256_set1_epi32(0x0F);
    const __m256i lo = _mm256_packs_epi32(_mm256_and_si256(level[0], low4), _mm256_and_si256(level[1], low4));
    const __m256i hi = _mm256_packs_epi32(_mm256_and_si256(level[2], low4), _mm256_and_si256(level[3], low4));
    const __m256i bytes = _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4));
    const __m256i words = _mm256_permute4x64_epi64(bytes, 0xD8);
    const __m256i ordered = _mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), 0xD8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(qs), _mm256_castsi256_si128(ordered));
}

// Bit j of the u32 = bit 4 of level j (Q5's fifth bits).
void storeFifthBits(const __m256i (&level)[4], std::uint8_t* qh)
{
    std::uint32_t bits = 0;
    for (int k = 0; k < 4; ++k)
        bits |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(level[k], 27)))) << (8 * k);
    storeU32(qh, bits);
}

// ggml's first element of largest magnitude, with its sign (max starts at +0).
float signedAbsMax(const BlockVectors& v, const float* src)
{
    const float amax = horizontalMax(v.ax);
    const __m256 target = _mm256_set1_ps(amax);
    std::uint32_t hits = 0;
    for (int k = 0; k < 4; ++k)
        hits |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v.ax[k], target, _CMP_EQ_OQ))) << (8 * k);
    return amax == 0.0f ? 0.0f : src[__builtin_ctz(hits)];
}

void minMaxOf(const BlockVectors& v, const float* src, float* minOut, float* maxOut)
{
    __m256 mn = _mm256_min_ps(_mm256_min_ps(v.x[0], v.x[1]), _mm256_min_ps(v.x[2], v.x[3]));
    __m256 mx = _mm256_max_ps(_mm256_max_ps(v.x[0], v.x[1]), _mm256_max_ps(v.x[2], v.x[3]));
    __m128 a = _mm_min_ps(_mm256_castps256_ps128(mn), _mm256_extractf128_ps(mn, 1));
    a = _mm_min_ps(a, _mm_movehl_ps(a, a));
    a = _mm_min_ss(a, _mm_shuffle_ps(a, a, 1));
    __m128 b = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
    b = _mm_max_ps(b, _mm_movehl_ps(b, b));
    b = _mm_max_ss(b, _mm_shuffle_ps(b, b, 1));
    // The scalar scan keeps the first of equal extremes. Equal floats are the same bits except
    // +0 and -0, so only a zero extreme needs the first element comparing equal to it.
    const auto firstEqual = [&](float value) {
        if (value != 0.0f)
            return value;
        const __m256 target = _mm256_set1_ps(value);
        std::uint32_t hits = 0;
        for (int k = 0; k < 4; ++k)
            hits |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v.x[k], target, _CMP_EQ_OQ))) << (8 * k);
        return src[__builtin_ctz(hits)];
    };
    *minOut = firstEqual(_mm_cvtss_f32(a));
    *maxOut = firstEqual(_mm_cvtss_f32(b));
}

// Q5_0: d = (signed absmax) / -16, level = min(31, trunc(x * id + 16.5)), 5th bits in qh.
void q5_0(const float* src, std::uint8_t* dst, std::size_t blockCount, BlocksFn scalarBlocks)
{
    constexpr std::size_t kBytes = 22;  // f16 d, u32 qh, 16 bytes of nibbles
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += kBytes) {
        const BlockVectors v = loadBlock(src);
        if (!v.finite) {
            scalarBlocks(src, dst, 1);
            continue;
        }
        const float d = signedAbsMax(v, src) / -16.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeHalf(dst, d);
        const __m256 scale = _mm256_set1_ps(id);
        const __m256 half = _mm256_set1_ps(16.5f);
        const __m256i top = _mm256_set1_epi32(31);
        __m256i level[4];
        for (int k = 0; k < 4; ++k)  // in [0.5, 32.5] for finite blocks: a plain int truncation
            level[k] = _mm256_min_epi32(top, _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(v.x[k], scale), half)));
        storeFifthBits(level, dst + 2);
        storeNibbles(level, dst + 6);
    }
}

// Q4_1 / Q5_1: d = (max - min) / (2^bits - 1), m = min, level = trunc((x - min) * id + 0.5)
// (capped at 15 for Q4_1; Q5_1's levels stay within 31 for finite blocks).
template <int kBits>
void asymmetric(const float* src, std::uint8_t* dst, std::size_t blockCount, BlocksFn scalarBlocks)
{
    constexpr std::size_t kBytes = kBits == 4 ? 20 : 24;
    for (std::size_t b = 0; b < blockCount; ++b, src += kBlock, dst += kBytes) {
        const BlockVectors v = loadBlock(src);
        if (!v.finite) {
            scalarBlocks(src, dst, 1);
            continue;
        }
        float min = 0.0f;
        float max = 0.0f;
        minMaxOf(v, src, &min, &max);
        const float d = (max - min) / float((1 << kBits) - 1);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        storeHalf(dst, d);
        storeHalf(dst + 2, min);
        const __m256 scale = _mm256_set1_ps(id);
        const __m256 offset = _mm256_set1_ps(min);
        const __m256 half = _mm256_set1_ps(0.5f);
        __m256i level[4];
        for (int k = 0; k < 4; ++k) {
            level[k] = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v.x[k], offset), scale), half));
            if constexpr (kBits == 4)
                level[k] = _mm256_min_epi32(_mm256_set1_epi32(15), level[k]);
            else  // ggml's (uint8_t) cast: only the low 8 bits matter, and only 5 are stored
                level[k] = _mm256_and_si256(level[k], _mm256_set1_epi32(0xFF));
        }
        if constexpr (kBits == 5) {
            storeFifthBits(level, dst + 4);
            storeNibbles(level, dst + 8);
        } else {
            storeNibbles(level, dst + 4);
        }
    }
}

}  // namespace

LegacyAvx2 legacyAvx2Kernels()
{
    return {q8_0, q4_0, asymmetric<4>, q5_0, asymmetric<5>};
}

}  // namespace gguf::quantize
