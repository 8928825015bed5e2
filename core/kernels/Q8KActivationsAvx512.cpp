// q8_K activations (QuantizedDot.h: quantizeActivations) on 512-bit registers: the arithmetic of
// quantizeRowQ8_K in QuantizedDot.cpp step for step (the same single-rounded products and the
// same round-half-to-even through the float magic number), so the same bytes, 16 values at a
// time; and the int16 copy in Q8Activations::wide's order with the sums of each 32. On MoE
// layers every expert's product quantizes its tokens again, and the scalar loops were 6-7 % of
// a pass.
//
// Built with the flags of QuantizedDotAvx512.cpp; called only where the CPU has them.

#if defined(__AVX512BW__) && defined(__AVX512VL__)

#include "core/kernels/QuantizedDot.h"

#include <immintrin.h>

// GCC 12's 512-bit reductions and conversions start from an undefined register, which its
// uninitialized-use warnings report once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cmath>
#include <cstdint>

namespace gguf::qdot {

void quantizeRowsQ8KAvx512(const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out)
{
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    const __m512i mantissa = _mm512_set1_epi32(0x007fffff);
    const __m512i bias = _mm512_set1_epi32(0x00400000);
    const __m512i limit = _mm512_set1_epi32(127);
    // The wide order within 32 values: 0 1 4 5 ... 28 29, then 2 3 6 7 ... 30 31.
    alignas(64) std::int16_t order[32];
    for (int p = 0; p < 32; ++p)
        order[p] = static_cast<std::int16_t>(wideOrder(p));
    const __m512i wideIndex = _mm512_load_si512(order);
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t first = 0; first + 256 <= columns; first += 256) {
            const float* v = x + t * columns + first;
            std::int8_t* q = out.values.data() + t * columns + first;
            std::int16_t* sums = out.sums.data() + (t * columns + first) / 16;
            float& scale = out.scales[static_cast<std::size_t>((t * columns + first) / 256)];
            // Operands in this order, so that a NaN is passed over as the scalar loop's `>` does.
            __m512 largest = _mm512_setzero_ps();
            for (int j = 0; j < 256; j += 16)
                largest = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(v + j)), largest);
            const float amax = _mm512_reduce_max_ps(largest);
            if (amax == 0.0f) {
                for (int j = 0; j < 256; ++j)
                    q[j] = 0;
                for (int g = 0; g < 16; ++g)
                    sums[g] = 0;
                scale = 0.0f;
                continue;
            }
            // The first value of that magnitude gives the sign, as the scalar loop's strict `>`.
            float max = 0.0f;
            for (int j = 0; j < 256; ++j)
                if (std::fabs(v[j]) == amax) {
                    max = v[j];
                    break;
                }
            const float iscale = -127.0f / max;
            const __m512 s = _mm512_set1_ps(iscale);
            for (int j = 0; j < 256; j += 16) {
                const __m512 shifted = _mm512_add_ps(_mm512_mul_ps(s, _mm512_loadu_ps(v + j)), magic);
                const __m512i rounded = _mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(shifted), mantissa), bias);
                const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_min_epi32(rounded, limit));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(q + j), bytes);
                sums[j / 16] = static_cast<std::int16_t>(_mm512_reduce_add_epi32(_mm512_cvtepi8_epi32(bytes)));
            }
            scale = 1.0f / iscale;
        }
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t first = 0; first < columns; first += 32) {
            const __m512i values = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(out.valuesOf(t) + first)));
            _mm512_storeu_si512(out.wide.data() + t * columns + first, _mm512_permutexvar_epi16(wideIndex, values));
            const std::int16_t* sums = out.sumsOf(t) + first / 16;
            out.pairSums[static_cast<std::size_t>(t * (columns / 32) + first / 32)] = static_cast<std::int16_t>(sums[0] + sums[1]);
        }
}

}  // namespace gguf::qdot

#endif
