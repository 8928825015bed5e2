// Step-3.5 (src/models/step35.cpp): head_count and head_count_kv per layer, sliding layers flagged
// per stored block with their own rope base (rope.freq_base_swa, else 10000); NEOX rope over the
// sliding layers' rope.dimension_count_swa but over half of rope.dimension_count on the full
// layers, whose rotation alone takes rope_freqs; per-head RMS QK-norm before the rope where the
// file has it; a head-wise gate sigmoid(attn_gate . x) on the attention output where the file has
// attn_gate; scale 1/sqrt(key head). A layer routes where the file has ffn_gate_inp (sigmoid
// unless expert_gating_func says otherwise, exp_probs_b for the choice, expert_weights_norm and
// _scale read, plus the shared expert), else a dense SwiGLU FFN; every SwiGLU may be clamped per
// layer (swiglu_clamp_exp for the routed experts, swiglu_clamp_shexp for the shared expert and
// the dense FFN).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& step35BlockDescription()
{
    static const BlockDescription description{
        .architecture = "step35",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .allowsNextN = true,
        .nextnMayBeAbsent = true,
        .slidingWindows = SlidingWindows::PerBlockFlags,
        .slidingRope = SlidingRope::Default10000,
        .gating = ExpertGating::Sigmoid,
        .expertWidth = ExpertWidth::KeyRequired,
        .sharedExperts = SharedExperts::WidthKeyOrNone,
        .normalizeExpertWeights = false,
        .ropeFreqsOnGlobalOnly = true,
        .experts = {.keys = {.gating = true, .weightsScale = true, .weightsNorm = true}, .layers = ExpertLayers::WithRouter},
        .attention = {.perLayerHeadCounts = true, .halfRopeOnFullLayers = true, .headGate = true},
        .denseFeedForward = {.readsSwigluClamps = true},
    };
    return description;
}

}  // namespace gguf
