// ERNIE 4.5 MoE (src/models/ernie4-5-moe.cpp, loader ernie4-5.cpp): the llama block (NORM rope
// over the whole head, optional q/k/v/output biases) with leading dense layers, then routed
// experts on every layer: a softmax router whose exp_probs_b moves the choice only (the weights
// are the unbiased probabilities of the chosen, renormalised), plus an optional shared expert
// of expert_shared_feed_forward_length.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& ernie45MoeBlockDescription()
{
    static const BlockDescription description{
        .architecture = "ernie4_5-moe",
        .rope = RopePairing::Adjacent,
        .allowsProjectionBiases = true,
        .ropeWholeHead = true,
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::KeyRequired,
        .sharedExperts = SharedExperts::WidthKeyOrNone,
        .normalizeExpertWeights = true,
        .experts = {.keys = {.leadingDense = true}, .layers = ExpertLayers::AfterLeadingDenseStepOne},
    };
    return description;
}

}  // namespace gguf
