// GLM-4.5 / 4.6 MoE (src/models/glm4-moe.cpp): NEOX RoPE on the first rope.dimension_count dims
// of each head (partial rope), optional q/k/v biases and q/k norms, leading dense layers, routed
// experts with sigmoid gating (the default without expert_gating_func) and exp_probs_b, one or
// more shared experts, the FFN's norm stored as post_attention_norm; the NextN block after the
// trunk is not run. (Files with rope.dimension_sections, the multimodal M-RoPE form, are not
// described here.)

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& glm4MoeBlockDescription()
{
    static const BlockDescription description{
        .architecture = "glm4moe",
        .rope = RopePairing::Halves,
        .allowsProjectionBiases = true,
        .allowsQkNorm = true,
        .allowsNextN = true,
        .nextnMayBeAbsent = true,
        .ropeSectionsRefused = true,
        .feedForwardNorm = "post_attention_norm",
        .gating = ExpertGating::Sigmoid,
        .expertWidth = ExpertWidth::KeyRequired,
        .sharedExperts = SharedExperts::FromCount,
        .normalizeExpertWeights = false,
        .experts = {.keys = kAllRoutingKeys},
    };
    return description;
}

}  // namespace gguf
