// Qwen3-Next (src/models/qwen3next.cpp): Gated DeltaNet layers beside gated full attention, as
// Qwen3.5-MoE, but beta and alpha come from one ssm_ba laid out per key head and value head j
// reads key head j / (value heads / key heads); NEOX rope over rope.dimension_count (no
// sections); the attention layers every full_attention_interval (default 4) unless
// attention.recurrent_layers lists them; every layer routes (softmax, top-k renormalised, no
// scale) with a shared expert gated by sigmoid(ffn_gate_inp_shexp . x); the FFN's norm is
// post_attention_norm. A model without experts is refused, as llama.cpp's loader does.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& qwen3NextBlockDescription()
{
    static const BlockDescription description{
        .architecture = "qwen3next",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .gatedAttention = true,
        .allowsNextN = true,
        .defaultFullAttentionInterval = 4,
        .feedForwardNorm = "post_attention_norm",
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::KeyOrPerUsed,
        .sharedExperts = SharedExperts::WidthKey,
        .normalizeExpertWeights = true,
        .experts = {.requiresExperts = true},
        .hybrid = {.deltaNetGroupedHeads = true},
    };
    return description;
}

}  // namespace gguf
