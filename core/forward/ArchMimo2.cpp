// MiMo-V2 (src/models/mimo2.cpp): gpt-oss-like hybrid attention with MoE. head_count and
// head_count_kv per layer (the sliding layers have fewer KV heads), V heads of another size than
// K heads, partial NEOX rope, sliding layers flagged per layer with their own rope base
// (rope.freq_base_swa, else 10000), attention sinks where the file has them, and the attention's
// output times attention.value_scale when it is not 1; scale 1/sqrt(key head). A layer routes
// where the file has ffn_gate_inp (sigmoid router with exp_probs_b for the choice, weights always
// renormalised, no scale: its loader reads no routing key), else a dense SwiGLU FFN. The NextN
// blocks after the trunk are not run.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& mimo2BlockDescription()
{
    static const BlockDescription description{
        .architecture = "mimo2",
        .rope = RopePairing::Halves,
        .allowsNextN = true,
        .nextnMayBeAbsent = true,
        .slidingWindows = SlidingWindows::PerLayerFlags,
        .slidingRope = SlidingRope::Default10000,
        .gating = ExpertGating::Sigmoid,
        .expertWidth = ExpertWidth::KeyRequired,
        .normalizeExpertWeights = true,
        .experts = {.layers = ExpertLayers::WithRouter},
        .attention = {.perLayerHeadCounts = true, .valueLengthApart = true, .sinksWherePresent = true, .readsValueScale = true},
    };
    return description;
}

}  // namespace gguf
