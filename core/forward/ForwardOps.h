#pragma once
// The element-wise and attention steps of the pass, on row-major [tokens, features] f32
// activations, each written to follow the ggml CPU op llama.cpp uses (noted per function), so
// an f32 model matches llama.cpp to rounding.

#include "forward/BlockDescription.h"

#include <cstdint>
#include <span>

namespace gguf {

// ggml_rms_norm then ggml_mul: y = (x / sqrt(mean(x^2) + eps)) * weight, the float squares
// summed in double as ggml does. `weight` may be empty (plain rms_norm). In place is allowed.
void rmsNormRows(const float* x, std::int64_t tokens, std::int64_t width, std::span<const float> weight, float epsilon, float* y);

struct RopeParameters {
    RopePairing pairing = RopePairing::Adjacent;
    std::int64_t dimensions = 0;  // rotated dimensions per head (n_rot); the rest pass through
    float freqBase = 10000.0f;
    float freqScale = 1.0f;
    std::span<const float> freqFactors;  // rope_freqs.weight (n_rot / 2), or empty
};

// ggml_rope_ext without YaRN (ext_factor 0, attn_factor 1) on `heads` heads of `headSize` per
// token; token t sits at position t.
void applyRope(float* x, std::int64_t tokens, std::int64_t heads, std::int64_t headSize, const RopeParameters& rope);

// Causal self-attention with grouped-query heads: q [tokens, heads * headSize], k and v
// [tokens, kvHeads * headSize]; out [tokens, heads * headSize]. Scores are scaled by `scale`,
// softmaxed per row (future positions masked), then weight v (ggml's kq, soft_max_ext, kqv).
void causalAttention(const float* q, const float* k, const float* v, std::int64_t tokens, std::int64_t heads, std::int64_t kvHeads,
                     std::int64_t headSize, float scale, float* out);

// ggml_swiglu_split on [rows, width]: gate = silu(gate) * up, with ggml's vector SiLU.
void swiglu(float* gate, const float* up, std::int64_t rows, std::int64_t width);

// Softmax of each row of `values` in place (ggml_soft_max without mask, scale 1, ggml's exp).
void softmaxRows(float* values, std::int64_t rowCount, std::int64_t width);

}  // namespace gguf
