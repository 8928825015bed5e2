// Q4_K in the repacked kernels' order (QuantizedDot.h: Q4_K_8x8) on 512-bit registers.
//
// A chunk of 32 rows is first laid out as unsigned bytes, 16 rows to a register, each row's
// four consecutive values of a sub-block in one 32-bit lane: one vpdpbusd against a token's
// four activations (a broadcast) then adds to the sub-block sums of 16 rows at once, with no
// horizontal sum anywhere. Each sub-block's sums are multiplied by its 6-bit scales (vpmulld)
// into the super-block's total; integers are exact, so the total is the reference's. The floats
// then follow the reference step for step: acc = fma(float(total), dW * dA, acc), the minimums'
// term likewise from the activations' sub-block sums, and y = acc - accMin. Against the int16
// tile (QuantizedDotBodies.inc) this does four byte products per lane and instruction instead of
// two, on registers twice as wide.
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
#include <cmath>
#include <cstring>
#include <vector>

namespace gguf::qdot {

namespace {

constexpr int kRegisterRows = 16;             // rows per register (one 32-bit lane each)
constexpr int kChunkRows = 2 * kRegisterRows;  // rows prepared and multiplied together
constexpr int kTokens = 4;                    // tokens per tile: 2 x 4 sums and 2 x 4 totals in registers
constexpr int kDirectTokens = 3;              // up to this many tokens, no layout (directRows)

// One prepared super-block of a chunk, in the order the tile reads it.
struct PreparedBlock {
    std::uint8_t values[8][8][2][kRegisterRows][4];  // [sub-block][group of 4][half][row][value]
    std::int32_t scales[8][2][kRegisterRows];        // [sub-block][half][row]
    std::int16_t mins[4][2][kRegisterRows][2];       // [sub-block pair][half][row][sub-block]
    float d[2][kRegisterRows];
    float dmin[2][kRegisterRows];
};

// A super-block's 12 packed bytes as its eight 6-bit scales (bytes 0..7) and eight 6-bit
// minimums (8..15) at once: q4kScaleMin's decoding, four sub-blocks per 32-bit word.
inline void scalesAndMins(const std::uint8_t* packedBytes, std::uint8_t* bytes)
{
    std::uint32_t packed[3];
    std::memcpy(packed, packedBytes, 12);
    const std::uint32_t low6 = 0x3f3f3f3fu, nibble = 0x0f0f0f0fu, top2 = 0x03030303u;
    const std::uint32_t decoded[4] = {packed[0] & low6, (packed[2] & nibble) | (((packed[0] >> 6) & top2) << 4), packed[1] & low6,
                                      ((packed[2] >> 4) & nibble) | (((packed[1] >> 6) & top2) << 4)};
    std::memcpy(bytes, decoded, 16);
}

// Lays out `count` (<= 32) stored rows, `rowBytes` apart, as PreparedBlock per super-block;
// rows past `count` are zero (their outputs are not stored).
void prepareChunk(const std::uint8_t* rows, std::int64_t rowBytes, int count, std::int64_t superBlocks, PreparedBlock* out,
                  ChunkPrefetch& next)
{
    using L = blocks::Q4_K;
    static const std::uint8_t zeroBlock[L::bytes] = {};
    const __m256i low4 = _mm256_set1_epi8(0xF);
    for (std::int64_t b = 0; b < superBlocks; ++b) {
        PreparedBlock& p = out[b];
        const std::uint8_t* block[kChunkRows];
        for (int r = 0; r < kChunkRows; ++r)
            block[r] = r < count ? rows + r * rowBytes + b * static_cast<std::int64_t>(L::bytes) : zeroBlock;
        for (int r = 0; r < kChunkRows; ++r) {
            next.step();
            const int half = r / kRegisterRows, lane = r % kRegisterRows;
            p.d[half][lane] = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block[r] + L::d));
            p.dmin[half][lane] = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block[r] + L::dmin));
            std::uint8_t bytes[16];
            scalesAndMins(block[r] + L::scales, bytes);
            for (int j = 0; j < 8; ++j)
                p.scales[j][half][lane] = bytes[j];
            for (int k = 0; k < 4; ++k) {
                p.mins[k][half][lane][0] = bytes[8 + 2 * k];
                p.mins[k][half][lane][1] = bytes[9 + 2 * k];
            }
        }
        // Sub-blocks 2k and 2k + 1 are the low and high nibbles of the same 32 bytes.
        for (int k = 0; k < 4; ++k)
            for (int half = 0; half < 2; ++half) {
                __m256i bytes[kRegisterRows];
                for (int r = 0; r < kRegisterRows; ++r)
                    bytes[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block[half * kRegisterRows + r] + L::qs + 32 * k));
                for (int high = 0; high < 2; ++high) {
                    __m256i nibbles[kRegisterRows];
                    for (int r = 0; r < kRegisterRows; ++r)
                        nibbles[r] = high ? _mm256_and_si256(_mm256_srli_epi16(bytes[r], 4), low4) : _mm256_and_si256(bytes[r], low4);
                    __m512i columns[8];
                    transpose16x8(nibbles, columns);
                    for (int g = 0; g < 8; ++g)
                        _mm512_storeu_si512(p.values[2 * k + high][g][half], columns[g]);
                }
            }
    }
}

// Chunk x tokens [token, token + T): stores rows [0, count) of each token's outputs.
template <int T>
void tile(const PreparedBlock* chunk, std::int64_t superBlocks, int count, const Q8Activations& x, std::int64_t token, float* y,
          std::int64_t yStride)
{
    const std::int8_t* values[T];
    const float* activationScales[T];
    const std::int16_t* pairSums[T];
#pragma GCC unroll 16
    for (int t = 0; t < T; ++t) {
        values[t] = x.valuesOf(token + t);
        activationScales[t] = x.scalesOf(token + t);
        pairSums[t] = x.pairSumsOf(token + t);
    }
    __m512 acc[2][T], accMin[2][T];
#pragma GCC unroll 16
    for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            acc[h][t] = accMin[h][t] = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < superBlocks; ++b) {
        const PreparedBlock& p = chunk[b];
        __m512i total[2][T];
#pragma GCC unroll 16
        for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t)
                total[h][t] = _mm512_setzero_si512();
        for (int j = 0; j < 8; ++j) {
            __m512i sum[2][T];
#pragma GCC unroll 16
            for (int h = 0; h < 2; ++h)
#pragma GCC unroll 16
                for (int t = 0; t < T; ++t)
                    sum[h][t] = _mm512_setzero_si512();
#pragma GCC unroll 8
            for (int g = 0; g < 8; ++g) {
                const __m512i w0 = _mm512_loadu_si512(p.values[j][g][0]);
                const __m512i w1 = _mm512_loadu_si512(p.values[j][g][1]);
#pragma GCC unroll 16
                for (int t = 0; t < T; ++t) {
                    std::int32_t four;
                    std::memcpy(&four, values[t] + b * 256 + j * 32 + g * 4, 4);
                    const __m512i a = _mm512_set1_epi32(four);
                    sum[0][t] = _mm512_dpbusd_epi32(sum[0][t], w0, a);
                    sum[1][t] = _mm512_dpbusd_epi32(sum[1][t], w1, a);
                }
            }
            const __m512i s0 = _mm512_loadu_si512(p.scales[j][0]);
            const __m512i s1 = _mm512_loadu_si512(p.scales[j][1]);
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t) {
                total[0][t] = _mm512_add_epi32(total[0][t], _mm512_mullo_epi32(sum[0][t], s0));
                total[1][t] = _mm512_add_epi32(total[1][t], _mm512_mullo_epi32(sum[1][t], s1));
            }
        }
#pragma GCC unroll 16
        for (int h = 0; h < 2; ++h) {
            const __m512 d = _mm512_loadu_ps(p.d[h]);
            const __m512 dmin = _mm512_loadu_ps(p.dmin[h]);
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t) {
                __m512i minTotal = _mm512_setzero_si512();
#pragma GCC unroll 16
                for (int k = 0; k < 4; ++k) {
                    std::int32_t pair;
                    std::memcpy(&pair, pairSums[t] + b * 8 + 2 * k, 4);
                    minTotal = _mm512_dpwssd_epi32(minTotal, _mm512_loadu_si512(p.mins[k][h]), _mm512_set1_epi32(pair));
                }
                const __m512 dA = _mm512_set1_ps(activationScales[t][b]);
                acc[h][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(total[h][t]), _mm512_mul_ps(d, dA), acc[h][t]);
                accMin[h][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(minTotal), _mm512_mul_ps(dmin, dA), accMin[h][t]);
            }
        }
    }
#pragma GCC unroll 16
    for (int h = 0; h < 2; ++h) {
        const int valid = std::clamp(count - h * kRegisterRows, 0, kRegisterRows);
        const auto mask = static_cast<__mmask16>((1u << valid) - 1u);
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            _mm512_mask_storeu_ps(y + (token + t) * yStride + h * kRegisterRows, mask, _mm512_sub_ps(acc[h][t], accMin[h][t]));
    }
}

// A few tokens (up to kDirectTokens) straight from the stored rows, with no layout: laying out
// 32 rows costs more than their products with one to three tokens (a single token's output
// product, MoE experts at the end of a prompt). Per row and super-block: the 32 bytes of
// sub-blocks 2k and 2k + 1 as 64 values, one vpdpbusd against 64 activations per token (lanes
// 0..7 sub-block 2k, 8..15 sub-block 2k + 1), times those sub-blocks' scales; the lanes summed
// once per super-block. The same integers and float steps as the tile.
template <int T>
void directRows(const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x, std::int64_t token, float* y, std::int64_t yStride)
{
    using L = blocks::Q4_K;
    const std::int64_t superBlocks = x.columns / 256;
    const std::int64_t rowBytes = superBlocks * static_cast<std::int64_t>(L::bytes);
    const __m256i low4 = _mm256_set1_epi8(0xF);
    // Byte k of each 32-bit lane's scale: lanes 0..7 take sub-block 2k's, 8..15 sub-block 2k + 1's.
    __m512i pick[4];
    for (int k = 0; k < 4; ++k)
        pick[k] = _mm512_set_epi32(2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k, 2 * k,
                                   2 * k, 2 * k, 2 * k, 2 * k, 2 * k, 2 * k);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::uint8_t* row = weights + r * rowBytes;
        float acc[T] = {}, accMin[T] = {};
        for (std::int64_t b = 0; b < superBlocks; ++b) {
            const std::uint8_t* block = row + b * static_cast<std::int64_t>(L::bytes);
            std::uint8_t bytes[16];
            scalesAndMins(block + L::scales, bytes);
            const __m512i scales = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
            __m512i total[T];
            for (int t = 0; t < T; ++t)
                total[t] = _mm512_setzero_si512();
            for (int k = 0; k < 4; ++k) {
                const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + L::qs + 32 * k));
                const __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_and_si256(packed, low4)),
                                                     _mm256_and_si256(_mm256_srli_epi16(packed, 4), low4), 1);
                const __m512i scale = _mm512_permutexvar_epi32(pick[k], scales);
                for (int t = 0; t < T; ++t) {
                    const __m512i a = _mm512_loadu_si512(x.valuesOf(token + t) + b * 256 + 64 * k);
                    total[t] = _mm512_add_epi32(total[t], _mm512_mullo_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), w, a), scale));
                }
            }
            const float d = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block + L::d));
            const float dmin = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block + L::dmin));
            for (int t = 0; t < T; ++t) {
                const std::int16_t* sums = x.pairSumsOf(token + t) + b * 8;
                std::int32_t minTotal = 0;
                for (int j = 0; j < 8; ++j)
                    minTotal += bytes[8 + j] * sums[j];
                const float dA = x.scalesOf(token + t)[b];
                acc[t] = std::fma(static_cast<float>(_mm512_reduce_add_epi32(total[t])), d * dA, acc[t]);
                accMin[t] = std::fma(static_cast<float>(minTotal), dmin * dA, accMin[t]);
            }
        }
        for (int t = 0; t < T; ++t)
            y[(token + t) * yStride + r] = acc[t] - accMin[t];
    }
}

}  // namespace

void repackedQ4KRowsAvx512(const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x, TokenSpan span,
                           float* y, std::int64_t yStride)
{
    const std::int64_t superBlocks = x.columns / 256;
    if (span.count <= kDirectTokens) {
        overTokenTiles<kDirectTokens>(span, [&](auto size, std::int64_t t) {
            directRows<decltype(size)::value>(weights, rows, x, t, y, yStride);
        });
        return;
    }
    thread_local std::vector<PreparedBlock> chunk;
    chunk.resize(static_cast<std::size_t>(superBlocks));
    overRowChunks<kChunkRows, kTokens>(
        weights, rows, rowBytes, span,
        [&](const std::uint8_t* rowsAt, int count, ChunkPrefetch& next) {
            prepareChunk(rowsAt, rowBytes, count, superBlocks, chunk.data(), next);
        },
        [&](auto size, std::int64_t first, int count, std::int64_t t) {
            tile<decltype(size)::value>(chunk.data(), superBlocks, count, x, t, y + first, yStride);
        });
}

}  // namespace gguf::qdot

#endif
