// The integer lane sums of GgmlDotLanes.h (addLaneProducts) with AVX2, as ggml's own kernels
// form them: vpmaddubsw of |w| and a with w's sign, then vpmaddwd by ones, so that 32-bit lane l
// holds values 4l .. 4l + 3 of each 32. No pair reaches the int16 limit (|w| <= 128, |a| <= 127),
// and integer sums are exact, so the lanes are the scalar loop's to the bit. Built with -mavx2
// (core/CMakeLists.txt); called only where the CPU has it.

#if defined(__AVX2__)
#include <immintrin.h>

#include <cstdint>

namespace gguf::ggmldot {

void addLaneProductsAvx2(const std::int8_t* w, const std::int8_t* a, int count, const int* scale16, std::int32_t* lanes)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i total = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes));
    for (int v = 0; v < count; v += 32) {
        const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + v));
        const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + v));
        __m256i sums = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(wv, wv), _mm256_sign_epi8(av, wv)), ones);
        if (scale16) {
            // Lanes 0-3 hold values v .. v + 15, lanes 4-7 the next 16.
            const __m256i scale = _mm256_set_m128i(_mm_set1_epi32(scale16[v / 16 + 1]), _mm_set1_epi32(scale16[v / 16]));
            sums = _mm256_mullo_epi32(sums, scale);
        }
        total = _mm256_add_epi32(total, sums);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), total);
}

}  // namespace gguf::ggmldot
#endif
