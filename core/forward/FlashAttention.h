#pragma once
// ggml_flash_attn_ext as ggml-cpu runs it (ops.cpp, ggml_compute_forward_flash_attn_ext_f16, on
// x86 with AVX2 + FMA), query row by query row, in its order of operations:
//
// - tiled, when the K and V caches are both f16 (an f32 cache is cast to f16 first), the
//   query's ubatch holds 64 queries or more and the value head is a multiple of 8: the query
//   stays f32; per tile of 64 cells the scores are one fma chain each over the head (simd_gemm),
//   scaled, soft-capped (tanh, then times the cap), masked; the running maximum M and sum S are
//   updated once per tile (S and the accumulator scaled by expf(M_old - M) when M grows, S plus
//   the tile's ggml_vec_soft_max_f32 in double), and the f32 accumulator takes the tile's
//   probabilities times V as one fma chain per value in cell order;
// - else one cell at a time: the query converted to K's vec_dot_type, the score by K's vec_dot,
//   the online softmax with expf per cell, V accumulated in f16 (an f16 V cache: every step
//   rounded to f16) or in f32 after V's to_float.
//
// Then the attention sink, if any, joins M and S, and the accumulator is divided by S. Each
// query's result does not depend on the others (nor on the threads).

#include "core/forward/ForwardOps.h"
#include "core/forward/KvCacheRows.h"

namespace gguf {

// q [tokens, heads * keySize]; keys and values [tokens * kvHeads rows] as the cache holds them;
// out [tokens, heads * valueSize]. spec.cache names the types keys and values were stored in.
void flashAttention(const float* q, const CachedRows& keys, const CachedRows& values, std::int64_t tokens, const AttentionSpec& spec,
                    float* out);

}  // namespace gguf
