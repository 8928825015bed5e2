// Q6_K in ggml's vec_dot order (QuantizedDot.h) on 512-bit registers.
//
// That order keeps 8 float lanes per output; lane l takes, per super-block, fma(dA * dW, s_l)
// with s_l the integer sum of scale * q * a over values 4l .. 4l + 3 of each 32 (q unsigned,
// 0..63), less 32 times the q8_K sums of 16-value sub-blocks 2l and 2l + 1 times their scales
// (ggml_vec_dot_q6_K_q8_K takes the offset so). So each output needs its 8 integer sums apart.
// A chunk of 32 rows is laid out once as int16 weights times their 16-value scales, 16 rows to
// a register, each row's two consecutive values in one 32-bit lane, ordered by lane l: one
// vpdpwssd against a token's two activations (a broadcast) adds to s_l of 16 rows at once, and
// the 8 sums of a lane never need a horizontal add; one more against the two sums of lane l's
// sub-blocks gives the offsets. Integers are exact and the floats take the reference's steps,
// so the bits are the reference's. Against the tile of QuantizedDotBodies.inc (one row's 8
// lanes in a 256-bit register) this is two registers' worth of products per instruction.
//
// Built with the flags of QuantizedDotAvx512.cpp; called only where the CPU has them.

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__FMA__)

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/ChunkPrefetch.h"
#include "core/kernels/QuantizedDotVector.h"
#include "core/kernels/LaneSums.h"
#include "core/kernels/TokenTiles.h"

#include <immintrin.h>

// GCC 12's 512-bit casts and broadcasts start from an undefined register, which its
// uninitialized-use warnings report once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// After the pragmas: its 512-bit cast is one of those.
#include "core/kernels/TransposeAvx512.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace gguf::qdot {

namespace {

constexpr int kRegisterRows = 16;              // rows per register (one 32-bit lane each)
constexpr int kChunkRows = 2 * kRegisterRows;  // rows prepared and multiplied together
constexpr int kTokens = 4;                     // tokens per tile: 2 x 4 integer sums in registers
constexpr int kDirectTokens = 3;               // up to this many tokens, no layout (directRows)

// One prepared super-block of a chunk, in the order the tile reads it: for lane l, 32-value
// group c and pair p, the weights (times their scale) at values 32c + 4l + 2p and + 1; for lane
// l, the scales of sub-blocks 2l and 2l + 1.
struct PreparedBlock {
    std::int16_t weights[8][8][2][2][kRegisterRows][2];  // [lane][group][pair][half][row][value]
    std::int16_t scales[8][2][kRegisterRows][2];         // [lane][half][row][sub-block 2l, 2l + 1]
    float d[2][kRegisterRows];
};

// Half h (values 128h .. 128h + 127) of a super-block as four registers of 32 unsigned 6-bit
// values, groups[q] holding values 128h + 32q .. + 31: the low nibbles of ql's first / second 32
// bytes for q = 0 / 1, the high ones for q = 2 / 3, with bits 2q, 2q + 1 of qh on top.
inline void sixBitGroups(const std::uint8_t* block, int h, __m256i* groups)
{
    using L = blocks::Q6_K;
    const __m256i low4 = _mm256_set1_epi8(0xF);
    const __m256i low2 = _mm256_set1_epi8(3);
    const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + L::ql + 64 * h));
    const __m256i second = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + L::ql + 64 * h + 32));
    const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + L::qh + 32 * h));
    const auto top = [&](int shift) { return _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, shift), low2), 4); };
    groups[0] = _mm256_or_si256(_mm256_and_si256(first, low4), top(0));
    groups[1] = _mm256_or_si256(_mm256_and_si256(second, low4), top(2));
    groups[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(first, 4), low4), top(4));
    groups[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(second, 4), low4), top(6));
}

// One row's super-block as int16 q * scale (q unsigned) in value order, into `out` (256 values).
void decodeRow(const std::uint8_t* block, std::int16_t* out)
{
    using L = blocks::Q6_K;
    for (int h = 0; h < 2; ++h) {
        __m256i groups[4];
        sixBitGroups(block, h, groups);
        for (int q = 0; q < 4; ++q) {
            const int sixteen = 8 * h + 2 * q;  // the scale index of the group's first 16 values
            const auto scale = [&](int i) { return _mm256_set1_epi16(static_cast<std::int8_t>(block[L::scales + sixteen + i])); };
            std::int16_t* target = out + 128 * h + 32 * q;
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(target),
                                _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm256_castsi256_si128(groups[q])), scale(0)));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(target + 16),
                                _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm256_extracti128_si256(groups[q], 1)), scale(1)));
        }
    }
}

// Lays out `count` (<= 32) stored rows, `rowBytes` apart, as PreparedBlock per super-block;
// rows past `count` are zero (their outputs are not stored). Each super-block's rows are
// decoded into `staging` ([row][256] int16), then transposed 8 value pairs at a time.
void prepareChunk(const std::uint8_t* rows, std::int64_t rowBytes, int count, std::int64_t superBlocks, PreparedBlock* out,
                  std::int16_t* staging, ChunkPrefetch& next)
{
    using L = blocks::Q6_K;
    static const std::uint8_t zeroBlock[L::bytes] = {};
    for (std::int64_t b = 0; b < superBlocks; ++b) {
        PreparedBlock& p = out[b];
        for (int r = 0; r < kChunkRows; ++r) {
            const std::uint8_t* block = r < count ? rows + r * rowBytes + b * static_cast<std::int64_t>(L::bytes) : zeroBlock;
            next.step();
            p.d[r / kRegisterRows][r % kRegisterRows] = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block + L::d));
            for (int l = 0; l < 8; ++l)
                for (int i = 0; i < 2; ++i)
                    p.scales[l][r / kRegisterRows][r % kRegisterRows][i] = static_cast<std::int8_t>(block[L::scales + 2 * l + i]);
            decodeRow(block, staging + r * 256);
        }
        // Pairs 8m .. 8m + 7 of the 128 in a row: group c = m / 2, lanes 4 (m % 2) .. + 3.
        for (int half = 0; half < 2; ++half)
            for (int m = 0; m < 16; ++m) {
                __m256i pairs[kRegisterRows];
                for (int r = 0; r < kRegisterRows; ++r)
                    pairs[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(staging + (half * kRegisterRows + r) * 256 + 16 * m));
                __m512i columns[8];
                transpose16x8(pairs, columns);
                for (int k = 0; k < 8; ++k)
                    _mm512_storeu_si512(p.weights[4 * (m % 2) + k / 2][m / 2][k % 2][half], columns[k]);
            }
    }
}

// Chunk x tokens [token, token + T): stores rows [0, count) of each token's outputs.
template <int T>
void tile(const PreparedBlock* chunk, std::int64_t superBlocks, int count, const Q8Activations& x, std::int64_t token, float* y,
          std::int64_t yStride)
{
    // Q8Activations::wide holds each 32 values as int16 with values 4l, 4l + 1 at 32-bit word l
    // and 4l + 2, 4l + 3 at word 8 + l: word 16c + 8p + l of a super-block is pair p of lane l in
    // group c.
    const std::int16_t* wide[T];
    const float* activationScales[T];
    const std::int16_t* blockSums[T];
#pragma GCC unroll 16
    for (int t = 0; t < T; ++t) {
        wide[t] = x.wideOf(token + t);
        activationScales[t] = x.scalesOf(token + t);
        blockSums[t] = x.sumsOf(token + t);
    }
    __m512 lanes[8][2][T];
    for (int l = 0; l < 8; ++l)
#pragma GCC unroll 16
        for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t)
                lanes[l][h][t] = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < superBlocks; ++b) {
        const PreparedBlock& p = chunk[b];
        __m512 scales[2][T];  // dA * dW per output
#pragma GCC unroll 16
        for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t)
                scales[h][t] = _mm512_mul_ps(_mm512_set1_ps(activationScales[t][b]), _mm512_loadu_ps(p.d[h]));
        for (int l = 0; l < 8; ++l) {
            __m512i sum[2][T];
#pragma GCC unroll 16
            for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
                for (int t = 0; t < T; ++t)
                    sum[h][t] = _mm512_setzero_si512();
#pragma GCC unroll 16
            for (int c = 0; c < 8; ++c)
#pragma GCC unroll 2
                for (int pair = 0; pair < 2; ++pair) {
                    const __m512i w0 = _mm512_loadu_si512(p.weights[l][c][pair][0]);
                    const __m512i w1 = _mm512_loadu_si512(p.weights[l][c][pair][1]);
#pragma GCC unroll 16
                    for (int t = 0; t < T; ++t) {
                        std::int32_t two;
                        std::memcpy(&two, wide[t] + b * 256 + 32 * c + 16 * pair + 2 * l, 4);
                        const __m512i a = _mm512_set1_epi32(two);
                        sum[0][t] = _mm512_dpwssd_epi32(sum[0][t], w0, a);
                        sum[1][t] = _mm512_dpwssd_epi32(sum[1][t], w1, a);
                    }
                }
#pragma GCC unroll 16
            for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
                for (int t = 0; t < T; ++t) {
                    std::int32_t two;
                    std::memcpy(&two, blockSums[t] + b * 16 + 2 * l, 4);
                    const __m512i offset = _mm512_dpwssd_epi32(_mm512_setzero_si512(), _mm512_loadu_si512(p.scales[l][h]), _mm512_set1_epi32(two));
                    const __m512i centred = _mm512_sub_epi32(sum[h][t], _mm512_slli_epi32(offset, 5));
                    lanes[l][h][t] = _mm512_fmadd_ps(scales[h][t], _mm512_cvtepi32_ps(centred), lanes[l][h][t]);
                }
        }
    }
#pragma GCC unroll 16
    for (int h = 0; h < 2; ++h) {
        const int valid = std::clamp(count - h * kRegisterRows, 0, kRegisterRows);
        const auto mask = static_cast<__mmask16>((1u << valid) - 1u);
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t) {
            // ggml's hsum_float_8: ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)).
            const auto& v = lanes;
            const __m512 total = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v[0][h][t], v[4][h][t]), _mm512_add_ps(v[2][h][t], v[6][h][t])),
                                               _mm512_add_ps(_mm512_add_ps(v[1][h][t], v[5][h][t]), _mm512_add_ps(v[3][h][t], v[7][h][t])));
            _mm512_mask_storeu_ps(y + (token + t) * yStride + h * kRegisterRows, mask, total);
        }
    }
}

// A few tokens (up to kDirectTokens) straight from the stored rows, with no layout (laying out
// 32 rows costs more than their products with one to three tokens: the output product of a
// single position, say). Per row and super-block: two 32-value groups c = 2m, 2m + 1 as 64
// unsigned values against 64 activations per token, one vpdpbusd (lanes 0..7 group 2m's lanes
// l, 8..15 group 2m + 1's), times the scale of each lane's 16 values; the two halves added give
// lane l's sum, less 32 times the paired scaled block sums (one vpmaddwd). The same integers
// and float steps as the tile.
template <int T>
void directRows(const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x, std::int64_t token, float* y,
                std::int64_t yStride)
{
    using L = blocks::Q6_K;
    const std::int64_t superBlocks = x.columns / 256;
    // Lanes 0..3, 4..7, 8..11, 12..15 of pair m take the scales of values 64m + 16i .. + 15.
    __m512i pick[4];
    for (int m = 0; m < 4; ++m)
        pick[m] = _mm512_set_epi32(4 * m + 3, 4 * m + 3, 4 * m + 3, 4 * m + 3, 4 * m + 2, 4 * m + 2, 4 * m + 2, 4 * m + 2, 4 * m + 1,
                                   4 * m + 1, 4 * m + 1, 4 * m + 1, 4 * m, 4 * m, 4 * m, 4 * m);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::uint8_t* row = weights + r * rowBytes;
        __m256 lanes[T];
        for (int t = 0; t < T; ++t)
            lanes[t] = _mm256_setzero_ps();
        for (std::int64_t b = 0; b < superBlocks; ++b) {
            const std::uint8_t* block = row + b * static_cast<std::int64_t>(L::bytes);
            const __m128i scaleBytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + L::scales));
            const __m512i scales = _mm512_cvtepi8_epi32(scaleBytes);
            const __m256i scales16 = _mm256_cvtepi8_epi16(scaleBytes);
            __m256i groups[8];
            sixBitGroups(block, 0, groups);
            sixBitGroups(block, 1, groups + 4);
            __m512i sum[T];
            for (int t = 0; t < T; ++t)
                sum[t] = _mm512_setzero_si512();
            for (int m = 0; m < 4; ++m) {
                const __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(groups[2 * m]), groups[2 * m + 1], 1);
                const __m512i scale = _mm512_permutexvar_epi32(pick[m], scales);
                for (int t = 0; t < T; ++t) {
                    const __m512i a = _mm512_loadu_si512(x.valuesOf(token + t) + b * 256 + 64 * m);
                    sum[t] = _mm512_add_epi32(sum[t], _mm512_mullo_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), w, a), scale));
                }
            }
            const float d = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block + L::d));
            for (int t = 0; t < T; ++t) {
                const __m256i blockSums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.sumsOf(token + t) + b * 16));
                const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(scales16, blockSums), 5);
                const __m256i folded = _mm256_sub_epi32(_mm256_add_epi32(_mm512_castsi512_si256(sum[t]), _mm512_extracti64x4_epi64(sum[t], 1)), offset);
                lanes[t] = _mm256_fmadd_ps(_mm256_set1_ps(x.scalesOf(token + t)[b] * d), _mm256_cvtepi32_ps(folded), lanes[t]);
            }
        }
        for (int t = 0; t < T; ++t) {
            alignas(32) float l[8];
            _mm256_store_ps(l, lanes[t]);
            y[(token + t) * yStride + r] = sumLanes8(l);
        }
    }
}

}  // namespace

void q6KRowsAvx512(const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x, TokenSpan span, float* y,
                   std::int64_t yStride)
{
    const std::int64_t superBlocks = x.columns / 256;
    if (span.count <= kDirectTokens) {
        overTokenTiles<kDirectTokens>(span, [&](auto size, std::int64_t t) {
            directRows<decltype(size)::value>(weights, rowBytes, rows, x, t, y, yStride);
        });
        return;
    }
    thread_local std::vector<PreparedBlock> chunk;
    thread_local std::vector<std::int16_t> staging;
    chunk.resize(static_cast<std::size_t>(superBlocks));
    staging.resize(static_cast<std::size_t>(kChunkRows * 256));
    overRowChunks<kChunkRows, kTokens>(
        weights, rows, rowBytes, span,
        [&](const std::uint8_t* rowsAt, int count, ChunkPrefetch& next) {
            prepareChunk(rowsAt, rowBytes, count, superBlocks, chunk.data(), staging.data(), next);
        },
        [&](auto size, std::int64_t first, int count, std::int64_t t) {
            tile<decltype(size)::value>(chunk.data(), superBlocks, count, x, t, y + first, yStride);
        });
}

}  // namespace gguf::qdot

#endif
