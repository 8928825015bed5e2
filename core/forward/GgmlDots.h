#pragma once
// Dot products as ggml-cpu sums them on x86 with AVX2 + FMA (the build of the oracle), each in
// the order of the kernel it names, so that a result of the pass is llama.cpp's to the bit when
// its inputs are. The attention (GgmlAttention.h, FlashAttention.h) and the f32 / f16 experts of
// MUL_MAT_ID use them.
//
//   vecDotF32    ggml_vec_dot_f32: four 8-lane fma accumulators over 32-value steps, added
//                (0 + 2) + (1 + 3), the lanes then ((0 + 4) + (1 + 5)) + ((2 + 6) + (3 + 7))
//                (GGML_F32x8_REDUCE), the leftovers one by one in float
//   laneDot8     tinyBLAS (llamafile sgemm): 8 fma lanes, lane l taking elements l, l + 8, ...,
//                then ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)); what mul_mat uses for f32, f16
//                and bf16 operands of two or more columns
//   vecDotF16    ggml_vec_dot_f16: as vecDotF32, the leftovers in double
//   vecDotBf16   ggml_vec_dot_bf16: four accumulators with a multiply and an add, not an fma,
//                added (0 + 2) + (1 + 3), the lanes as laneDot8's; the leftovers in double
//   chainDot     simd_gemm (flash attention's tiles): one fma chain in element order
//   quantizedKeyDot   ggml_vec_dot_<type>_q8_0 / _q8_1 of a quantized key row and the quantized
//                query, integer sums per 4 values into 8 float lanes (KvCacheRows.h)
//
// The float operands of the f16 and bf16 products hold values already rounded to that type.

#include "core/forward/KvCacheRows.h"

#include <cstdint>

namespace gguf {

float vecDotF32(const float* x, const float* y, std::int64_t n);
float laneDot8(const float* x, const float* y, std::int64_t n);
float vecDotF16(const float* x, const float* y, std::int64_t n);
float vecDotBf16(const float* x, const float* y, std::int64_t n);
float chainDot(const float* x, const float* y, std::int64_t n);

// Row `row` of the quantized keys `k` times the query `q`. `asTinyBlas`: as llamafile's
// tinyBLAS_Q0_AVX sums it (mul_mat of two or more query rows without flash attention), which
// differs from vec_dot only for iq4_nl (vec_dot alternates two accumulators there).
float quantizedKeyDot(const CachedRows& k, std::int64_t row, const QuantizedQuery& q, bool asTinyBlas);

// Whether mul_mat of these keys and two or more query rows goes through tinyBLAS (llamafile
// sgemm on AVX2): f32 never does here (its query is not contiguous, and f32 needs no
// conversion that would give it a second chance), f16 and bf16 do for a head size that is a
// multiple of 8, q8_0, q4_0, q5_0 and iq4_nl always, q4_1 and q5_1 never.
bool keyProductUsesTinyBlas(std::uint32_t keyType, std::int64_t keySize);

}  // namespace gguf
