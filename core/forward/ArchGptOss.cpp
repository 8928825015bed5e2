// gpt-oss (src/models/openai-moe.cpp): attention sinks, biases on q/k/v/o, sliding window on even
// layers (pattern 2, window from the file), YaRN on every layer (the local ones take the global
// base and scale), NEOX RoPE; experts only, the router's top-k logits softmaxed (no
// renormalisation), expert biases, the clamped SwiGLU-OAI; the FFN's norm is
// post_attention_norm.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& gptOssBlockDescription()
{
    static const BlockDescription description{
        .architecture = "gpt-oss",
        .rope = RopePairing::Halves,
        .allowsProjectionBiases = true,
        .hasAttentionSinks = true,
        .slidingWindows = SlidingWindows::Always,
        .defaultSlidingPattern = 2,
        .slidingRope = SlidingRope::SameAsGlobal,
        .feedForwardNorm = "post_attention_norm",
        .activation = FeedForwardActivation::SwigluOai,
        .gating = ExpertGating::SoftmaxSelected,
        .expertWidth = ExpertWidth::KeyRequired,
        .normalizeExpertWeights = false,
    };
    return description;
}

}  // namespace gguf
