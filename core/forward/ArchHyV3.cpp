// Hunyuan / HY V3 (src/models/hy-v3.cpp): GQA with per-head RMS QK-norm before the NEOX rope
// (over the whole head), optional q/k/v/output biases and rope_freqs; a layer routes where the
// file has ffn_gate_inp (the loader makes the dense and the expert tensors optional alike), else
// a dense SwiGLU FFN; routing by sigmoid (the default without expert_gating_func) with
// exp_probs_b (named without ".bias") for the choice, expert_weights_norm and _scale read, plus an always-on shared
// expert (its width key, else the routed width). The NextN block after the trunk is not run.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& hyV3BlockDescription()
{
    static const BlockDescription description{
        .architecture = "hy_v3",
        .rope = RopePairing::Halves,
        .allowsProjectionBiases = true,
        .allowsQkNorm = true,
        .ropeWholeHead = true,
        .allowsNextN = true,
        .nextnMayBeAbsent = true,
        .gating = ExpertGating::Sigmoid,
        .expertWidth = ExpertWidth::KeyRequired,
        .sharedExperts = SharedExperts::WidthKeyOrExperts,
        .normalizeExpertWeights = false,
        .experts = {.keys = {.gating = true, .weightsScale = true, .weightsNorm = true}, .layers = ExpertLayers::WithRouter,
                    .bareSelectionBias = true},
    };
    return description;
}

}  // namespace gguf
