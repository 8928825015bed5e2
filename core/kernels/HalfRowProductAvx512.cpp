// HalfRowProduct.h with AVX-512: as the panel kernel (LanePanelAvx512.cpp), a register holds the
// 8 lanes of two rows, but filled from the stored f16 rows (two 16-byte loads, one insert, one
// exact widening) instead of a packed f32 copy; 8 rows x up to 5 tokens per tile. Built with
// -mavx512f -mavx512dq -mfma (core/CMakeLists.txt); called only where the CPU has them.

#include <algorithm>
#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__FMA__)
#include <immintrin.h>

// GCC 12's 256-to-512-bit casts and broadcasts start from an undefined register, which its
// uninitialized-use warnings report once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "core/kernels/PairLanesAvx512.h"

namespace gguf::lanes {

namespace {

constexpr int kPairs = 4;  // 8 rows a tile

// Rows [0, nr) (nr 1..8; the others repeat the last row and are not stored) x T tokens.
template <int T>
void tile(const std::uint16_t* rows, int nr, std::int64_t columns, const float* x, float* y, std::int64_t yStride)
{
    const std::uint16_t* row[2 * kPairs];
    for (int i = 0; i < 2 * kPairs; ++i)
        row[i] = rows + std::min(i, nr - 1) * columns;
    __m512 acc[kPairs][T];
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            acc[p][t] = _mm512_setzero_ps();
    for (std::int64_t k = 0; k < columns; k += 8) {
        __m512 w[kPairs];
#pragma GCC unroll 16
        for (int p = 0; p < kPairs; ++p) {
            const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[2 * p] + k));
            const __m128i second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[2 * p + 1] + k));
            w[p] = _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(first), second, 1));
        }
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            const __m512 xv = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + t * columns + k));
#pragma GCC unroll 16
            for (int p = 0; p < kPairs; ++p)
                acc[p][t] = _mm512_fmadd_ps(w[p], xv, acc[p][t]);
        }
    }
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            if (2 * p >= nr)
                continue;
            const __m512 sums = sumPairLanes(acc[p][t]);
            y[t * yStride + 2 * p] = _mm512_cvtss_f32(sums);
            if (2 * p + 1 < nr)
                y[t * yStride + 2 * p + 1] = _mm_cvtss_f32(_mm512_extractf32x4_ps(sums, 2));
        }
}

template <int T>
void allRows(const std::uint16_t* rows, std::int64_t rowCount, std::int64_t columns, const float* x, float* y, std::int64_t yStride)
{
    for (std::int64_t r = 0; r < rowCount; r += 2 * kPairs)
        tile<T>(rows + r * columns, static_cast<int>(std::min<std::int64_t>(2 * kPairs, rowCount - r)), columns, x, y + r, yStride);
}

}  // namespace

void halfRowProductAvx512(const std::uint16_t* rows, std::int64_t rowCount, std::int64_t columns, const float* x, std::int64_t tokens,
                          float* y, std::int64_t yStride)
{
    switch (tokens) {
    case 1: allRows<1>(rows, rowCount, columns, x, y, yStride); return;
    case 2: allRows<2>(rows, rowCount, columns, x, y, yStride); return;
    case 3: allRows<3>(rows, rowCount, columns, x, y, yStride); return;
    case 4: allRows<4>(rows, rowCount, columns, x, y, yStride); return;
    default: allRows<5>(rows, rowCount, columns, x, y, yStride); return;
    }
}

}  // namespace gguf::lanes

#endif
