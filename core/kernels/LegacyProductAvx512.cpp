// Q8_0 and Q4_0 in ggml's vec_dot order (QuantizedDot.h) on 512-bit registers.
//
// That order keeps 8 float lanes per output; lane l takes, per 32-value block, fma(dW * dA, s_l)
// with s_l the integer sum of the byte products over values 4l .. 4l + 3. The tile of
// QuantizedDotBodies.inc holds one output's 8 lanes in a 256-bit register. Here a chunk of 16
// rows is laid out once so that one 512-bit register holds, for one lane l of one block, the
// four weights of each of the 16 rows (a row per 32-bit lane): one vpdpbusd against a broadcast
// of a token's four activations gives s_l of 16 outputs, one conversion and one fma add it to
// their lane-l accumulators, and the 8 lanes are summed vertically at the end. Twice the products
// per instruction of the 256-bit tile, and no per-row work (scale conversion, sign handling) left
// in the token loop.
//
// vpdpbusd multiplies unsigned by signed bytes, so the weights are laid out as w + 128 (Q8_0:
// w xor 0x80; Q4_0: q - 8 + 128 = q + 120) and every sum starts from -128 times its four
// activations, computed once per call: the integers are exact, the floats take the reference's
// steps, so the bits are the reference's.
//
// Built with the flags of QuantizedDotAvx512.cpp; called only where the CPU has them.

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__FMA__) && defined(__F16C__)

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/ChunkPrefetch.h"
#include "core/kernels/QuantizedDotVector.h"
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

namespace avx512 {
// QuantizedDotBodies.inc (in QuantizedDotAvx512.cpp): the 256-bit tiles, taken for a few tokens.
void dotRows(VectorDot dot, PrepareRowFn prepare, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
             const Q8Activations& x, TokenSpan span, float* y, std::int64_t yStride);
}  // namespace avx512

namespace {

constexpr int kChunkRows = 16;    // rows laid out together, one per 32-bit lane of a register
constexpr int kTokens = 3;        // tokens per tile: 8 x 3 accumulators in registers
constexpr int kDirectTokens = 3;  // up to this many tokens, no layout: the 256-bit tile

// One block of a chunk as the tile reads it.
struct PreparedBlock {
    std::uint8_t weights[8][kChunkRows][4];  // [lane][row][value]: w + 128 of values 4l .. 4l + 3
    float d[kChunkRows];                     // the rows' f16 scales
};

// A stored block's 32 weights as the unsigned bytes w + 128, in value order.
template <bool Q4>
inline __m256i shiftedWeights(const std::uint8_t* block)
{
    if constexpr (Q4) {
        // Values 0..15 are the low nibbles of the 16 bytes, 16..31 the high ones.
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + blocks::Q4_0::qs));
        const __m256i nibbles = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0xF));
        return _mm256_add_epi8(nibbles, _mm256_set1_epi8(120));
    } else {
        return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + blocks::Q8_0::qs)), _mm256_set1_epi8(-128));
    }
}

// Lays out `count` (<= 16) stored rows, `rowBytes` apart, as PreparedBlock per block; rows past
// `count` are zero weights with scale 0 (their outputs are not stored).
template <bool Q4>
void prepareChunk(const std::uint8_t* rows, std::int64_t rowBytes, int count, std::int64_t blockCount, PreparedBlock* out,
                  ChunkPrefetch& next)
{
    constexpr std::size_t blockBytes = Q4 ? blocks::Q4_0::bytes : blocks::Q8_0::bytes;
    // ChunkPrefetch requests three lines a step: enough steps per block to cover its 16 rows' bytes.
    constexpr int steps = (kChunkRows * blockBytes + 191) / 192;
    static const std::uint8_t zeroBlock[blockBytes] = {};
    for (std::int64_t b = 0; b < blockCount; ++b) {
        PreparedBlock& p = out[b];
        __m256i values[kChunkRows];
        for (int r = 0; r < kChunkRows; ++r) {
            const std::uint8_t* block = r < count ? rows + r * rowBytes + b * static_cast<std::int64_t>(blockBytes) : zeroBlock;
            p.d[r] = _cvtsh_ss(kernels::loadLe<std::uint16_t>(block));
            values[r] = shiftedWeights<Q4>(block);
        }
        for (int s = 0; s < steps; ++s)
            next.step();
        __m512i lanes[8];
        transpose16x8(values, lanes);
        for (int l = 0; l < 8; ++l)
            _mm512_storeu_si512(p.weights[l], lanes[l]);
    }
}

// -128 times the sum of each four activations of every token ([tokens][columns / 4]): the start
// of each integer sum, which cancels the 128 added to the weights. 64 values at a time; the
// values are a whole number of 32-value blocks, so the last step may take half a register.
void activationOffsets(const Q8Activations& x, std::vector<std::int32_t>& out)
{
    const std::int64_t total = x.tokens * x.columns;
    out.resize(static_cast<std::size_t>(total / 4));
    for (std::int64_t first = 0; first < total; first += 64) {
        const bool half = total - first < 64;
        const __m512i a = _mm512_maskz_loadu_epi8(half ? 0xFFFFFFFFull : ~0ull, x.values.data() + first);
        const __m512i sums = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(-128), a);
        _mm512_mask_storeu_epi32(out.data() + first / 4, half ? 0xFF : 0xFFFF, _mm512_sub_epi32(_mm512_setzero_si512(), sums));
    }
}

// Chunk x tokens [token, token + T): stores rows [0, count) of each token's outputs.
template <int T>
void tile(const PreparedBlock* chunk, std::int64_t blockCount, int count, const Q8Activations& x, const std::int32_t* offsets,
          std::int64_t token, float* y, std::int64_t yStride)
{
    const std::int8_t* values[T];
    const std::int32_t* starts[T];
    const float* activationScales[T];
#pragma GCC unroll 16
    for (int t = 0; t < T; ++t) {
        values[t] = x.valuesOf(token + t);
        starts[t] = offsets + (token + t) * (x.columns / 4);
        activationScales[t] = x.scalesOf(token + t);
    }
    __m512 lanes[8][T];
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l)
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            lanes[l][t] = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < blockCount; ++b) {
        const PreparedBlock& p = chunk[b];
        const __m512 dW = _mm512_loadu_ps(p.d);
        __m512 d[T];  // dW * dA per output, rounded to float as the reference rounds it
#pragma GCC unroll 16
        for (int t = 0; t < T; ++t)
            d[t] = _mm512_mul_ps(dW, _mm512_set1_ps(activationScales[t][b]));
#pragma GCC unroll 8
        for (int l = 0; l < 8; ++l) {
            const __m512i w = _mm512_loadu_si512(p.weights[l]);
#pragma GCC unroll 16
            for (int t = 0; t < T; ++t) {
                std::int32_t four;
                std::memcpy(&four, values[t] + b * 32 + 4 * l, 4);
                const __m512i sum = _mm512_dpbusd_epi32(_mm512_set1_epi32(starts[t][b * 8 + l]), w, _mm512_set1_epi32(four));
                lanes[l][t] = _mm512_fmadd_ps(d[t], _mm512_cvtepi32_ps(sum), lanes[l][t]);
            }
        }
    }
    const auto mask = static_cast<__mmask16>((1u << count) - 1u);
#pragma GCC unroll 16
    for (int t = 0; t < T; ++t) {
        // ggml's hsum_float_8: ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)).
        const auto& v = lanes;
        const __m512 total = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v[0][t], v[4][t]), _mm512_add_ps(v[2][t], v[6][t])),
                                           _mm512_add_ps(_mm512_add_ps(v[1][t], v[5][t]), _mm512_add_ps(v[3][t], v[7][t])));
        _mm512_mask_storeu_ps(y + (token + t) * yStride, mask, total);
    }
}

template <bool Q4>
void legacyRows(const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x, TokenSpan span, float* y,
                std::int64_t yStride)
{
    const std::int64_t blockCount = x.columns / 32;
    thread_local std::vector<PreparedBlock> chunk;
    thread_local std::vector<std::int32_t> offsets;
    chunk.resize(static_cast<std::size_t>(blockCount));
    activationOffsets(x, offsets);
    overRowChunks<kChunkRows, kTokens>(
        weights, rows, rowBytes, span,
        [&](const std::uint8_t* rowsAt, int count, ChunkPrefetch& next) {
            prepareChunk<Q4>(rowsAt, rowBytes, count, blockCount, chunk.data(), next);
        },
        [&](auto size, std::int64_t first, int count, std::int64_t t) {
            tile<decltype(size)::value>(chunk.data(), blockCount, count, x, offsets.data(), t, y + first, yStride);
        });
}

}  // namespace

void legacyRowsAvx512(VectorDot dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                      TokenSpan span, float* y, std::int64_t yStride)
{
    if (span.count <= kDirectTokens)
        avx512::dotRows(dot, nullptr, weights, rowBytes, rows, x, span, y, yStride);
    else if (dot == VectorDot::Q4_0Lanes)
        legacyRows<true>(weights, rowBytes, rows, x, span, y, yStride);
    else
        legacyRows<false>(weights, rowBytes, rows, x, span, y, yStride);
}

}  // namespace gguf::qdot

#endif
