// Mistral 3 / Ministral 3 (src/models/mistral3.cpp): the llama block (NORM rope over the whole
// head, optional rope_freqs, q/k/v/output and FFN biases, routed experts when expert_count > 0)
// with YaRN read from its own keys (yarn_beta_fast/slow, yarn_log_multiplier as mscale_all_dim)
// and llama-4-style attention temperature: with attention.temperature_scale, q after rope is
// multiplied per position by 1 + scale * ln(floor(pos / original context) + 1).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& mistral3BlockDescription()
{
    static const BlockDescription description{
        .architecture = "mistral3",
        .rope = RopePairing::Adjacent,
        .allowsProjectionBiases = true,
        .ropeWholeHead = true,
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::FeedForwardLength,
        .normalizeExpertWeights = true,
        .attention = {.temperature = AttentionTemperature::FromKey},
        .ropeKeys = {.readsYarnKeys = true},
        .denseFeedForward = {.allowsBiases = true},
    };
    return description;
}

}  // namespace gguf
