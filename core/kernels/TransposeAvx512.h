#pragma once
// A 16 x 8 transpose of 32-bit values on 512-bit registers, for the integer kernels that lay out
// 16 rows to a register (Q4KProductAvx512.cpp, Q6KProductAvx512.cpp, LegacyProductAvx512.cpp).
// Included only by files built with AVX-512.

#include <immintrin.h>

namespace gguf::qdot {

// In: rows[r] is row r's 8 values (32 bytes). Out: columns[c] is value c of rows 0..15, in row
// order. The rows are paired into registers as (0, 4), (1, 5), (2, 6), (3, 7), (8, 12), ...,
// so that the last step, which moves 128-bit lanes, leaves them in order.
[[gnu::always_inline]] inline void transpose16x8(const __m256i* rows, __m512i* columns)
{
    __m512i z[8], t[8], u[8];
    for (int i = 0; i < 8; ++i) {
        const int first = i < 4 ? i : i + 4;
        z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(rows[first]), rows[first + 4], 1);
    }
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi32(z[i], z[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(z[i], z[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);          // values 0 | 4 of four rows per lane
        u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);      // 1 | 5
        u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);  // 2 | 6
        u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);  // 3 | 7
    }
    for (int c = 0; c < 4; ++c) {
        columns[c] = _mm512_shuffle_i32x4(u[c], u[c + 4], 0x88);      // 128-bit lanes 0, 2 of each
        columns[c + 4] = _mm512_shuffle_i32x4(u[c], u[c + 4], 0xDD);  // lanes 1, 3 of each
    }
}

}  // namespace gguf::qdot
