#pragma once
// A register of two outputs' 8 lanes (the lane product, LaneProduct.h) summed in the lane order.
// Included only by files built with AVX-512.

#include <immintrin.h>

namespace gguf::lanes {

// Both rows' sums of a register of two rows' lanes, in lanes 0 and 8: the order of sumLanes,
// ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)), by three shuffled adds (a float add commutes).
inline __m512 sumPairLanes(__m512 v)
{
    const __m512i halves = _mm512_set_epi32(11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4);
    const __m512 a = _mm512_add_ps(v, _mm512_permutexvar_ps(halves, v));             // q: l[q] + l[q + 4]
    const __m512 b = _mm512_add_ps(a, _mm512_permute_ps(a, _MM_SHUFFLE(1, 0, 3, 2)));  // 0: (0+4)+(2+6), 1: (1+5)+(3+7)
    return _mm512_add_ps(b, _mm512_permute_ps(b, _MM_SHUFFLE(2, 3, 0, 1)));
}

}  // namespace gguf::lanes
