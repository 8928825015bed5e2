#pragma once
// The element-wise and attention steps of the pass, on row-major [tokens, features] f32
// activations, each written to follow the ggml CPU op llama.cpp uses (noted per function), so
// an f32 model matches llama.cpp to rounding.

#include "core/forward/BlockDescription.h"
#include "core/types/KvCacheSettings.h"

#include <array>
#include <algorithm>
#include <cstdint>
#include <span>

namespace gguf {

class TaskExecutor;

// ggml_rms_norm then ggml_mul: y = (x / sqrt(mean(x^2) + eps)) * weight, the float squares
// summed in double as ggml does. `weight` may be empty (plain rms_norm). In place is allowed.
void rmsNormRows(const float* x, std::int64_t tokens, std::int64_t width, std::span<const float> weight, float epsilon, float* y);

struct RopeParameters {
    RopePairing pairing = RopePairing::Adjacent;
    std::int64_t dimensions = 0;  // rotated dimensions per head (n_rot); the rest pass through
    float freqBase = 10000.0f;
    float freqScale = 1.0f;
    std::span<const float> freqFactors;  // rope_freqs.weight (n_rot / 2), or empty
    // Multi-section rope (IMROPE) for text: the pairs of the t, h and w sections turn with the
    // position, the others (the fourth section) stay at position 0. All zero: plain rope.
    std::array<int, 4> sections{};
    // cos and sin are scaled by attnFactor (llama.cpp's attn_factor: rope.scaling.attn_factor,
    // with YaRN's factor). YaRN (ggml's rope_yarn): ext_factor 1 blends interpolated and
    // extrapolated angles by the ramp between the correction dims and scales by (1 + 0.1 ln(1/scale)) more.
    bool yarn = false;
    float attnFactor = 1.0f;
    float betaFast = 32.0f;
    float betaSlow = 1.0f;
    std::int64_t originalContext = 0;
    // Rotate as ggml-cpu's C code is compiled (GCC contracts x0*c - x1*s into an fma).
    bool asGgml = false;
};

// ggml_rope_ext on `heads` heads of `headSize` per token; token t sits at position t.
void applyRope(float* x, std::int64_t tokens, std::int64_t heads, std::int64_t headSize, const RopeParameters& rope);

struct AttentionSpec {
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t keySize = 0;    // per head, q and k
    std::int64_t valueSize = 0;  // per head, v and the output
    float scale = 1.0f;          // applied to the scores in the softmax (ggml_soft_max_ext's scale)
    float softcap = 0.0f;        // > 0: scores become tanh(s / cap) * cap first
    std::int64_t window = 0;     // > 0: query p sees key j only when p - j < window
    std::span<const float> sinks;  // one logit per head that joins each softmax, or empty
    bool asGgml = false;           // sum as llama.cpp's CPU backend does (GgmlAttention.h)
    // Heads run side by side on it (null: the calling thread); each head's sums are the same
    // whichever thread runs it (OpenBLAS runs one thread per call, BlasLibrary.h).
    TaskExecutor* executor = nullptr;
    // With asGgml: llama.cpp's KV cache, the types K and V are rounded to and whether flash
    // attention sums them (GgmlAttention.h); and, before a quantized cache, the size of the
    // Walsh-Hadamard rotation llama.cpp applies to q and k, and to v and the output (0: none).
    KvCacheSettings cache{0, 0, FlashAttention::Off};
    std::int64_t keyRotation = 0;
    std::int64_t valueRotation = 0;
    std::int64_t ubatch = 512;  // ForwardOptions::ubatchQueries
    // With a window: chunks instead, query p sees key j only from the start of p's chunk of
    // `window` positions (llama4's LLAMA_SWA_TYPE_CHUNKED).
    bool chunked = false;
};

// The first key position query `position` sees under spec's window (0 without one).
inline std::int64_t firstVisibleKey(const AttentionSpec& spec, std::int64_t position)
{
    if (spec.window <= 0)
        return 0;
    return spec.chunked ? position / spec.window * spec.window : std::max<std::int64_t>(0, position - spec.window + 1);
}

// Causal self-attention with grouped-query heads: q [tokens, heads * keySize], k [tokens,
// kvHeads * keySize], v [tokens, kvHeads * valueSize]; out [tokens, heads * valueSize]. As
// llama.cpp without flash attention: kq, optional softcap, soft_max_ext (scale, causal and
// window mask, sinks), then kqv.
void causalAttention(const float* q, const float* k, const float* v, std::int64_t tokens, const AttentionSpec& spec, float* out);

// y = tanh(x / cap) * cap in place, as ggml_scale, ggml_tanh, ggml_scale.
void softcap(float* values, std::size_t count, float cap);

// ggml_swiglu_split on [rows, width]: gate = silu(gate) * up; `asGgml`: with ggml's vector SiLU
// on groups of 8 (bit for bit; a few times slower than libm's expf, so only when emulating).
void swiglu(float* gate, const float* up, std::int64_t rows, std::int64_t width, bool asGgml);
// build_ffn's clamped SwiGLU as ggml ops: ggml_silu(gate) (the same SiLU as swiglu), clamped
// above at `limit`, times up clamped to [-limit, limit] (step35).
void swigluClamped(float* gate, const float* up, std::int64_t rows, std::int64_t width, float limit, bool asGgml);

// ggml_geglu_split: gate = gelu(gate) * up, GELU through ggml's f16 table (the input rounded to
// f16, the table value an f16 of the tanh approximation), exact outside (-10, 10).
void geglu(float* gate, const float* up, std::size_t count);

// ggml_swiglu_oai (alpha 1.702, limit 7): x = min(gate, 7), y = clamp(up, -7, 7),
// gate = x / (1 + exp(-1.702 x)) * (y + 1).
void swigluOai(float* gate, const float* up, std::size_t count);

// ggml_sigmoid: 1 / (1 + expf(-x)) in place.
void sigmoid(float* values, std::size_t count);

// Softmax of each row of `values` in place (ggml_soft_max without mask, scale 1, ggml's exp).
void softmaxRows(float* values, std::int64_t rowCount, std::int64_t width);

}  // namespace gguf
