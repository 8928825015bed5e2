#pragma once
// Causal attention as llama.cpp's CPU backend computes it (x86, AVX2 + FMA), for llama.cpp's
// arithmetic. The keys and values are first stored as its KV cache stores them: rotated by a
// Walsh-Hadamard matrix where the cache is quantized and the head size allows (as
// llama_kv_cache's attn_rot_k / attn_rot_v), then rounded to the cache types (KvCacheRows.h).
// Then, without flash attention: kq by mul_mat (the sum KvDot.h names for the K type and the
// ubatch's query count), the softmax over a KV row of 256 cells (llama_kv_cache pads n_kv to
// 256) with ggml's vector exp and sum grouping, kqv by mul_mat of the transposed V cache and the
// probabilities rounded to V's vec_dot_type. With flash attention, FlashAttention.h. The result
// is llama.cpp's to the bit when the inputs are, which keeps later f16 / q8 roundings from
// flipping.

#include "core/forward/ForwardOps.h"

namespace gguf {

void causalAttentionAsGgml(const float* q, const float* k, const float* v, std::int64_t tokens, const AttentionSpec& spec, float* out);

// llama.cpp evaluates a sequence in ubatches, `ubatch` of its queries at a time (512, its default
// -ub, for a sequence alone), and which kernel sums a query's attention depends on how many of
// the sequence's queries share its ubatch: one alone goes through vec_dot instead of tinyBLAS,
// fewer than 64 skip flash attention's tiles. The count for the query at `position` of a
// `tokens`-token pass.
std::int64_t ubatchQueries(std::int64_t position, std::int64_t tokens, std::int64_t ubatch);

// Why llama.cpp would not run attention with this cache, or empty: a quantized V cache needs
// flash attention, a quantized cache whole blocks per head.
std::string kvCacheProblem(const KvCacheSettings& cache, std::int64_t keySize, std::int64_t valueSize);

// The size of the rotation llama_kv_cache applies before a quantized K (or V) cache whose heads
// are all `headSize` wide (0 when the sizes differ between layers): the largest power of two
// from 64 that divides it for K, 64 for V; 0 (none) for an unquantized cache or a head size
// that is not a multiple of 64.
std::int64_t keyRotationSize(std::uint32_t keyType, std::int64_t headSize);
std::int64_t valueRotationSize(std::uint32_t valueType, std::int64_t headSize);

}  // namespace gguf
