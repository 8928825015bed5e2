// MiniMax-M2 (src/models/minimax-m2.cpp): GQA whose QK-norm spans all heads of a token (one RMS
// over the whole q and k projections, before the heads are split), partial NEOX rope
// (rope.dimension_count of the head), scale 1/sqrt(head size), no biases; every layer routes:
// the router's expert_gating_func (required: llama.cpp has no default) with exp_probs_b for the
// choice, the chosen weights always renormalised, no scale, experts feed_forward_length wide.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& minimaxM2BlockDescription()
{
    static const BlockDescription description{
        .architecture = "minimax-m2",
        .rope = RopePairing::Halves,
        .gating = ExpertGating::Sigmoid,
        .expertWidth = ExpertWidth::KeyRequiredFeedForwardLength,
        .normalizeExpertWeights = true,
        .experts = {.keys = {.gating = true, .gatingRequired = true}},
        .attention = {.qkNormAcrossHeads = true},
    };
    return description;
}

}  // namespace gguf
