#pragma once
// Causal attention summed as llama.cpp's CPU backend sums it without flash attention (x86,
// AVX2 + FMA), for --llama-activations: kq by ggml_vec_dot_f32 (4 x 8 fma lanes over the head,
// its reduction order), the softmax over a KV row of 256 cells (llama_kv_cache pads n_kv to
// 256) with ggml's vector exp and sum grouping, kqv by tinyBLAS (8 fma lanes over the cells).
// The result is llama.cpp's to the bit when the inputs are, which keeps later f16 / q8
// roundings from flipping.

#include "core/forward/ForwardOps.h"

namespace gguf {

// ggml_vec_dot_f32 (AVX: GGML_F32_STEP 32, four 8-lane accumulators, GGML_F32x8_REDUCE, then
// the leftovers one by one); also what ggml's MUL_MAT_ID sums an f32 expert's rows with.
float vecDotF32(const float* x, const float* y, std::int64_t n);

void causalAttentionAsGgml(const float* q, const float* k, const float* v, std::int64_t tokens, const AttentionSpec& spec, float* out);

}  // namespace gguf
