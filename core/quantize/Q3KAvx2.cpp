// Built with -mavx2 (core/CMakeLists.txt); reached only through q3KLevelsAvx2() in QuantizeK16.cpp.

#include "core/quantize/Q3KAvx2.h"

#if GGUFX_X86_KERNELS
#include <immintrin.h>

namespace gguf::quantize {

namespace {

// ggml's nearest_int: the float sum's low mantissa bits, minus 2^22.
__m256i nearestInt8(__m256 v)
{
    const __m256i bits = _mm256_castps_si256(_mm256_add_ps(v, _mm256_set1_ps(12582912.0f)));
    return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x00400000));
}

void q3KLevels(const float* x, const float* subScale, std::int8_t* L, std::uint8_t* hmask, std::uint8_t* qs)
{
    const __m256i low = _mm256_set1_epi32(-4);
    const __m256i high = _mm256_set1_epi32(3);
    const __m256i offset = _mm256_set1_epi32(4);
    for (int j = 0; j < 16; ++j) {
        if (subScale[j] == 0.0f)
            continue;
        const __m256 d = _mm256_set1_ps(subScale[j]);
        __m256i level[2];
        for (int h = 0; h < 2; ++h) {
            const __m256i l = nearestInt8(_mm256_div_ps(_mm256_loadu_ps(x + 16 * j + 8 * h), d));
            level[h] = _mm256_add_epi32(_mm256_max_epi32(low, _mm256_min_epi32(high, l)), offset);
        }
        // 16 int32 (0..7) to 16 bytes in order: the words come lane-interleaved, so reorder them.
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(level[0], level[1]), 0xD8);
        const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(L + 16 * j), bytes);
    }
    const __m256i three = _mm256_set1_epi8(3);
    __m256i high32 = _mm256_setzero_si256();
    __m256i low2[8];
    for (int g = 0; g < 8; ++g) {
        const __m256i levels = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(L + 32 * g));
        high32 = _mm256_or_si256(high32, _mm256_and_si256(_mm256_cmpgt_epi8(levels, three), _mm256_set1_epi8(static_cast<char>(1 << g))));
        low2[g] = _mm256_and_si256(levels, three);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hmask), high32);
    // Bit pairs of groups 4h .. 4h + 3 at shifts 0, 2, 4, 6: values of at most 3 shifted by at
    // most 6 stay inside their byte, so 16-bit shifts do.
    for (int h = 0; h < 2; ++h) {
        const __m256i packed = _mm256_or_si256(_mm256_or_si256(low2[4 * h], _mm256_slli_epi16(low2[4 * h + 1], 2)),
                                               _mm256_or_si256(_mm256_slli_epi16(low2[4 * h + 2], 4), _mm256_slli_epi16(low2[4 * h + 3], 6)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs + 32 * h), packed);
    }
}

}  // namespace

Q3KLevelsFn q3KLevelsAvx2Kernel()
{
    return q3KLevels;
}

}  // namespace gguf::quantize
#endif
