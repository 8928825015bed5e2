#pragma once
// AVX2 helpers of the FP4 and ternary quantizers.
//
// ggml's best_index_mxfp4 (the first of the 16 doubled E2M1 values v with the least |v e - x|)
// for `n` values at once (n a multiple of 8): eight values per AVX2 instruction, the candidates
// tried in ggml's order with its strict comparison, so the same indices. nullptr without AVX2.

#include <cstddef>
#include <cstdint>

namespace gguf::quantize {

using Fp4IndicesFn = void (*)(const float* x, int n, float e, std::uint8_t* indices);

Fp4IndicesFn fp4IndicesAvx2();

// C's lroundf(x[i] * scale) (half away from zero) for `n` values (a multiple of 8), the
// quantizers' per-element rounding of TQ1_0, TQ2_0 and Q2_0, eight at a time. Only for blocks
// whose values and products are finite (callers check; the scalar path handles the rest).
// Returns false, writing nothing, when a product is not finite or not below 2^31 in magnitude.
using RoundTimesFn = bool (*)(const float* x, int n, float scale, std::int32_t* out);

RoundTimesFn roundTimesAvx2();

// max |x[i]| over n values (a multiple of 8), skipping NaN as ggml's `if (amax < fabsf(v))` does.
using AbsMaxFn = float (*)(const float* x, int n);

AbsMaxFn absMaxAvx2();

// Q1_0's sign bits: bit j of out[j / 8] set when x[j] >= 0 (false for NaN), n a multiple of 8.
using SignBitsFn = void (*)(const float* x, int n, std::uint8_t* out);

SignBitsFn signBitsAvx2();

// Whole TQ1_0 / TQ2_0 blocks (QuantizeTernaryFp4.cpp), bit-identical to the scalar quantizers: a
// finite block's absmax does not depend on the order of the scan, and x / absmax lies in [-1, 1],
// where lroundf is two comparisons with +-0.5. A block holding NaN or infinity, or whose absmax is
// so small that 1 / absmax overflows, goes to `scalarBlocks`. nullptr without AVX2.
using TernaryBlocksFn = void (*)(const float* x, std::uint8_t* dst, std::size_t blockCount);
using TernaryAvx2Fn = void (*)(const float* x, std::uint8_t* dst, std::size_t blockCount, TernaryBlocksFn scalarBlocks);

TernaryAvx2Fn tq1_0Avx2();
TernaryAvx2Fn tq2_0Avx2();

// The scalar bodies: the fallback, and what tests hold the AVX2 forms to.
void quantizeTQ1_0Scalar(const float* x, std::uint8_t* dst, std::size_t blockCount);
void quantizeTQ2_0Scalar(const float* x, std::uint8_t* dst, std::size_t blockCount);

}  // namespace gguf::quantize
