// DeepSeek-V2 / V3 (src/models/deepseek2.cpp) with split attn_k_b / attn_v_b: multi-head latent
// attention with or without q compression, NORM RoPE on the rope part (YaRN with the converter's
// log multiplier), leading dense layers, routed experts (softmax or sigmoid gating from
// expert_gating_func, exp_probs_b for the choice, expert groups, expert_weights_norm / scale) and
// expert_shared_count shared experts.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& deepseek2BlockDescription()
{
    static const BlockDescription description{
        .architecture = "deepseek2",
        .rope = RopePairing::Adjacent,
        .multiHeadLatentAttention = true,
        .yarnLogMultiplierInTenths = true,
        .deepseekLoadRules = true,
        .allowsNextN = true,
        .nextnMayBeAbsent = true,
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::KeyRequired,
        .sharedExperts = SharedExperts::FromCount,
        .normalizeExpertWeights = false,
        .readsVocabSize = true,
        .experts = {.keys = kAllRoutingKeys},
    };
    return description;
}

}  // namespace gguf
