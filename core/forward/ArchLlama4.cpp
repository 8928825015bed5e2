// Llama 4 (src/models/llama4.cpp): the llama block (NORM rope over the whole head, optional
// rope_freqs and attention biases) where every fourth layer ((il + 1) % 4 == 0) has no rope and
// multiplies q by the attention temperature instead, the roped layers norm q and k per head
// without a weight after the rope (unless 128 experts), and three layers of four attend in
// chunks of 8192 positions (hard-coded; inert below 8192 tokens). Every
// interleave_moe_layer_step-th layer routes: top-k on the router logits, the sigmoid of the
// chosen multiplies the expert's input (no renormalisation), plus an always-on shared expert of
// the routed width; the others run the dense FFN.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& llama4BlockDescription()
{
    static const BlockDescription description{
        .architecture = "llama4",
        .rope = RopePairing::Adjacent,
        .allowsProjectionBiases = true,
        .ropeWholeHead = true,
        .slidingWindows = SlidingWindows::Chunked,
        .defaultSlidingWindow = 8192,
        .defaultSlidingPattern = 4,
        .slidingRope = SlidingRope::SameAsGlobal,
        .gating = ExpertGating::Sigmoid,
        .expertWidth = ExpertWidth::KeyRequired,
        .sharedExperts = SharedExperts::ExpertWidth,
        .normalizeExpertWeights = false,
        .experts = {.layers = ExpertLayers::EveryStep, .weightsOnInput = true},
        .attention = {.temperature = AttentionTemperature::OnLayersWithoutRope, .noRopeLayerStep = 4, .normAfterRopeUnless128Experts = true},
    };
    return description;
}

}  // namespace gguf
