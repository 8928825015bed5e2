// The lane product (LaneProduct.h) with AVX2: one 256-bit register per output, 4 rows x 3
// tokens of them. Built with -mavx2 -mfma (core/CMakeLists.txt); called only where the CPU has
// them.

#include "core/kernels/LaneProductBlocking.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

namespace gguf::lanes {

namespace {

// R rows x T tokens; rows past `nr` repeat the last row and are not stored.
template <int T>
void tile(int nr, const float* x, std::int64_t xStride, const float* w, std::int64_t wStride, std::int64_t kn, float* lanes,
          std::int64_t laneRowStride, bool fresh, float* y, std::int64_t yStride)
{
    constexpr int R = 4;
    const float* row[R];
    for (int i = 0; i < R; ++i)
        row[i] = w + std::min(i, nr - 1) * wStride;
    __m256 acc[R][T];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            acc[r][t] = fresh ? _mm256_setzero_ps() : _mm256_loadu_ps(lanes + std::min(r, nr - 1) * laneRowStride + t * 8);
    for (std::int64_t k = 0; k < kn; k += 8) {
        __m256 xv[T];
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            xv[t] = _mm256_loadu_ps(x + t * xStride + k);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            const __m256 wv = _mm256_loadu_ps(row[r] + k);
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t)
                acc[r][t] = _mm256_fmadd_ps(wv, xv[t], acc[r][t]);
        }
    }
    if (y) {  // the last slice: the sums
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t)
                if (r < nr) {
                    alignas(32) float l[8];
                    _mm256_store_ps(l, acc[r][t]);
                    y[t * yStride + r] = sumLanes(l);
                }
        return;
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            if (r < nr)
                _mm256_storeu_ps(lanes + r * laneRowStride + t * 8, acc[r][t]);
}

struct Avx2Tile : RowMajorLanes {
    static constexpr int kRows = 4;
    static constexpr int kTokens = 3;
    static void run(int nr, int nt, const float* x, std::int64_t xStride, const float* w, std::int64_t wStride, std::int64_t kn,
                    float* lanes, std::int64_t laneRowStride, bool fresh, float* y, std::int64_t yStride)
    {
        switch (nt) {
        case 1: tile<1>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
        case 2: tile<2>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
        default: tile<3>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
        }
    }
};

}  // namespace

void laneProductAvx2(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                     std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch)
{
    blockedLaneProduct<Avx2Tile>(x, tokens, weights, columns, rowBegin, rowEnd, y, yStride, scratch);
}

}  // namespace gguf::lanes

#endif
