// The lane product over a packed panel (LanePanel.h) with AVX-512: a tile of 8 rows (the 4 row
// pairs of one panel group) x 6 tokens keeps 24 registers of lanes, each fed per 8 columns by one
// aligned load of its pair's weights and one broadcast of the token's 8 activations, so the
// loop is 24 multiply-adds, 4 loads and 6 broadcasts (no shuffle). The blocking is that of
// LaneProductBlocking.h: token blocks of at most 160, column slices whose activations stay in L2,
// lanes carried between slices, here as [row pair][token][16] so they too move in whole registers.
// Built with -mavx512f -mavx512dq -mfma (core/CMakeLists.txt); called only where the CPU has them.

#include "core/kernels/LanePanel.h"
#include "core/kernels/LaneProductBlocking.h"

#include <algorithm>

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__FMA__)
#include <immintrin.h>

// GCC 12's _mm512_broadcast_f32x8 and _mm512_extractf32x4_ps start from an undefined register,
// which its uninitialized-use warnings report once inlined here (as in LaneProductAvx512.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "core/kernels/PairLanesAvx512.h"

namespace gguf::lanes {

namespace {

constexpr int kPairs = static_cast<int>(kLanePanelGroupRows / 2);
constexpr int kTokens = 6;

// One panel group (its first `nr` rows stored) x T tokens over `kn` columns. `lanes` is the
// tile's first pair's lanes of its first token (pair stride `pairStride`); `fresh` starts them
// at zero; with `y` set (the last slice) the sums are stored instead of the lanes.
template <int T>
void tile(int nr, const float* x, std::int64_t xStride, const float* group, std::int64_t kn, float* lanes, std::int64_t pairStride,
          bool fresh, float* y, std::int64_t yStride)
{
    __m512 acc[kPairs][T];
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            acc[p][t] = fresh || 2 * p >= nr ? _mm512_setzero_ps() : _mm512_loadu_ps(lanes + p * pairStride + t * 16);
    for (std::int64_t k = 0; k < kn; k += 8) {
        __m512 w[kPairs];
#pragma GCC unroll 16
        for (int p = 0; p < kPairs; ++p)
            w[p] = _mm512_load_ps(group + k * kLanePanelGroupRows + p * 16);
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            const __m512 xv = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + t * xStride + k));
#pragma GCC unroll 16
            for (int p = 0; p < kPairs; ++p)
                acc[p][t] = _mm512_fmadd_ps(w[p], xv, acc[p][t]);
        }
    }
    if (y) {
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
        return;
    }
#pragma GCC unroll 16
    for (int p = 0; p < kPairs; ++p)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            if (2 * p < nr)
                _mm512_storeu_ps(lanes + p * pairStride + t * 16, acc[p][t]);
}

void tileTokens(int nt, int nr, const float* x, std::int64_t xStride, const float* group, std::int64_t kn, float* lanes,
                std::int64_t pairStride, bool fresh, float* y, std::int64_t yStride)
{
    switch (nt) {
    case 1: tile<1>(nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride); return;
    case 2: tile<2>(nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride); return;
    case 3: tile<3>(nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride); return;
    case 4: tile<4>(nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride); return;
    case 5: tile<5>(nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride); return;
    default: tile<kTokens>(nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride); return;
    }
}

// A panel group's 8 rows x 6 tokens, their lanes carried as one entry of 16 floats per row pair
// and token ([pairs, tokens, 16]); row r (a multiple of 8) from column k0 is its group's
// k0 * 8th float.
struct PanelTile {
    static constexpr int kRows = static_cast<int>(kLanePanelGroupRows);
    static constexpr int kTokens = lanes::kTokens;
    static constexpr std::int64_t kRowsPerEntry = 2;
    static constexpr std::int64_t kTokenLanes = 16;
    static const float* weightsAt(const float* panel, std::int64_t r, std::int64_t k0, std::int64_t columns)
    {
        return panel + r * columns + k0 * kLanePanelGroupRows;
    }
    static void run(int nr, int nt, const float* x, std::int64_t xStride, const float* group, std::int64_t, std::int64_t kn, float* lanes,
                    std::int64_t pairStride, bool fresh, float* y, std::int64_t yStride)
    {
        tileTokens(nt, nr, x, xStride, group, kn, lanes, pairStride, fresh, y, yStride);
    }
};

}  // namespace

void packLanePanelGroupF16Avx512(const std::uint16_t* rows, std::int64_t count, std::int64_t columns, float* group)
{
    const std::uint16_t* row[kLanePanelGroupRows];
    for (std::int64_t i = 0; i < kLanePanelGroupRows; ++i)
        row[i] = rows + std::min(i, count - 1) * columns;
    // Per 8 columns, each row pair's 16 floats are one aligned 64-byte line of the group: its two
    // rows' 8 halves side by side, widened at once (vcvtph2ps is exact).
    // The next 8 rows' bytes follow these: their lines are requested as one stream while these
    // are read as eight (8 interleaved streams read at half of one stream's rate here). Dense
    // F16, 1 thread, 8 interleaved rounds: 281 -> 293 tok/s on average. Requesting them during
    // the product instead (the packing woven into its tiles) gained no more.
    const char* next = reinterpret_cast<const char*>(rows + kLanePanelGroupRows * columns);
    float* out = group;
    for (std::int64_t k = 0; k < columns; k += 8) {
        _mm_prefetch(next + k / 4 * 64, _MM_HINT_T0);
        _mm_prefetch(next + k / 4 * 64 + 64, _MM_HINT_T0);
        for (int p = 0; p < kPairs; ++p, out += 16) {
            const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[2 * p] + k));
            const __m128i second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[2 * p + 1] + k));
            const __m256i halves = _mm256_inserti128_si256(_mm256_castsi128_si256(first), second, 1);
            _mm512_storeu_ps(out, _mm512_cvtph_ps(halves));
        }
    }
}

void lanePanelProductAvx512(const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows, float* y,
                            std::int64_t yStride, std::vector<float>& scratch)
{
    blockedLaneProduct<PanelTile>(x, tokens, panel, columns, 0, rows, y, yStride, scratch);
}

}  // namespace gguf::lanes

#endif
