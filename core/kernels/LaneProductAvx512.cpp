// The lane product (LaneProduct.h) with AVX-512: a 512-bit register holds the 8 lanes of two
// outputs (two weight rows against one token), so each fused multiply-add advances both in the
// same order as an 8-float kernel would. From a handful of tokens on, the rows are first packed
// into the panel of LanePanel.h, a group of rows at a time, and multiplied there (about 1.4x the
// tile below, which reads two rows' lanes with two loads and an insert); fewer tokens use the
// tile on the rows as they are. Built with -mavx512f -mavx512dq -mfma (core/CMakeLists.txt);
// called only where the CPU has them.

#include "core/kernels/LanePanel.h"
#include "core/kernels/LaneProductBlocking.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__FMA__)
#include <immintrin.h>

// GCC 12's _mm512_castps256_ps512 and _mm512_broadcast_f32x8 start from an undefined register,
// which its uninitialized-use warnings report once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace gguf::lanes {

namespace {

inline __m512 pair(const float* low, const float* high)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(low)), _mm256_loadu_ps(high), 1);
}

// RP row pairs x T tokens. Rows past `nr` repeat the last row and are not stored.
template <int RP, int T>
void tile(int nr, const float* x, std::int64_t xStride, const float* w, std::int64_t wStride, std::int64_t kn, float* lanes,
          std::int64_t laneRowStride, bool fresh, float* y, std::int64_t yStride)
{
    const float* row[2 * RP];
    for (int i = 0; i < 2 * RP; ++i)
        row[i] = w + std::min(i, nr - 1) * wStride;
    __m512 acc[RP][T];
#pragma GCC unroll 16
    for (int p = 0; p < RP; ++p)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            if (fresh)
                acc[p][t] = _mm512_setzero_ps();
            else
                acc[p][t] = pair(lanes + std::min(2 * p, nr - 1) * laneRowStride + t * 8,
                                 lanes + std::min(2 * p + 1, nr - 1) * laneRowStride + t * 8);
        }
    for (std::int64_t k = 0; k < kn; k += 8) {
        __m512 wv[RP];
#pragma GCC unroll 16
        for (int p = 0; p < RP; ++p)
            wv[p] = pair(row[2 * p] + k, row[2 * p + 1] + k);
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            const __m512 xv = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + t * xStride + k));
#pragma GCC unroll 16
            for (int p = 0; p < RP; ++p)
                acc[p][t] = _mm512_fmadd_ps(wv[p], xv, acc[p][t]);
        }
    }
    if (y) {  // the last slice: the sums
#pragma GCC unroll 16
        for (int p = 0; p < RP; ++p)
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t) {
                alignas(64) float l[16];
                _mm512_store_ps(l, acc[p][t]);
                y[t * yStride + 2 * p] = sumLanes(l);
                if (2 * p + 1 < nr)
                    y[t * yStride + 2 * p + 1] = sumLanes(l + 8);
            }
        return;
    }
#pragma GCC unroll 16
    for (int p = 0; p < RP; ++p)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            _mm256_storeu_ps(lanes + 2 * p * laneRowStride + t * 8, _mm512_castps512_ps256(acc[p][t]));
            if (2 * p + 1 < nr)
                _mm256_storeu_ps(lanes + (2 * p + 1) * laneRowStride + t * 8, _mm512_extractf32x8_ps(acc[p][t], 1));
        }
}

template <int RP>
void tileTokens(int nr, int nt, const float* x, std::int64_t xStride, const float* w, std::int64_t wStride, std::int64_t kn,
                float* lanes, std::int64_t laneRowStride, bool fresh, float* y, std::int64_t yStride)
{
    switch (nt) {
    case 1: tile<RP, 1>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
    case 2: tile<RP, 2>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
    case 3: tile<RP, 3>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
    case 4: tile<RP, 4>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
    case 5: tile<RP, 5>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
    default: tile<RP, 6>(nr, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride); return;
    }
}

struct Avx512Tile : RowMajorLanes {
    static constexpr int kRows = 4;
    static constexpr int kTokens = 6;
    static void run(int nr, int nt, const float* x, std::int64_t xStride, const float* w, std::int64_t wStride, std::int64_t kn,
                    float* lanes, std::int64_t laneRowStride, bool fresh, float* y, std::int64_t yStride)
    {
        if (nr > 2)
            tileTokens<2>(nr, nt, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride);
        else
            tileTokens<1>(nr, nt, x, xStride, w, wStride, kn, lanes, laneRowStride, fresh, y, yStride);
    }
};

}  // namespace

void lanePanelProductAvx512(const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows, float* y,
                            std::int64_t yStride, std::vector<float>& scratch);

void laneProductAvx512(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                       std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch)
{
    if (tokens < kLanePanelMinTokens) {
        blockedLaneProduct<Avx512Tile>(x, tokens, weights, columns, rowBegin, rowEnd, y, yStride, scratch);
        return;
    }
    // Rows a panel at a time, the panel within about 1 MB so it stays in L2 beside the activations.
    const std::int64_t chunk = std::max<std::int64_t>(kLanePanelGroupRows, (256 * 1024 / columns) / kLanePanelGroupRows * kLanePanelGroupRows);
    thread_local std::vector<float> storage;
    for (std::int64_t r = rowBegin; r < rowEnd; r += chunk) {
        const std::int64_t rows = std::min(chunk, rowEnd - r);
        float* panel = alignedLanePanel(storage, lanePanelFloats(rows, columns));
        packLanePanel(weights + r * columns, rows, columns, panel);
        lanePanelProductAvx512(x, tokens, panel, columns, rows, y + r, yStride, scratch);
    }
}

}  // namespace gguf::lanes

#endif
