// Qwen3.5 / 3.6 MoE (src/models/qwen35moe.cpp): the Qwen3.5 layers with routed experts (softmax,
// top-k renormalised, expert_weights_scale ignored) and a shared expert gated by
// sigmoid(ffn_gate_inp_shexp . x).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& qwen35MoeBlockDescription()
{
    static const BlockDescription description{
        .architecture = "qwen35moe",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .gatedAttention = true,
        .multiSectionRope = true,
        .allowsNextN = true,
        .defaultFullAttentionInterval = 4,
        .feedForwardNorm = "post_attention_norm",
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::KeyOrPerUsed,
        .sharedExperts = SharedExperts::WidthKey,
        .normalizeExpertWeights = true,
    };
    return description;
}

}  // namespace gguf
