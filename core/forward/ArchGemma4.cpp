// Gemma 4 (src/models/gemma4-iswa.cpp), both forms: the 26B-A4B / 31B one with routed experts
// beside the dense FFN and K = V on the full-attention layers, and the E2B / E4B one with
// per-layer embeddings, KV shared by the last layers and wider FFNs there. Per-layer sliding
// pattern, head counts and head sizes (sliding layers: key_length_swa, rope.dimension_count_swa,
// rope.freq_base_swa); proportional rope through rope_freqs on the full layers only; q and k
// RMS-normed per head with weights, v without; attention scale 1; GELU; every layer's output
// times layer_output_scale; final softcap from the file.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& gemma4BlockDescription()
{
    static const BlockDescription description{
        .architecture = "gemma4",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .slidingWindows = SlidingWindows::PerLayerFlags,
        .slidingRope = SlidingRope::Default10000,
        .finalSoftcap = FinalSoftcap::Optional,
        .defaultFinalSoftcap = 30.0f,
        .embeddingScaled = true,
        .postNorms = true,
        .activation = FeedForwardActivation::Gelu,
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::Key,
        .normalizeExpertWeights = true,
        .perLayerShapes = true,
        .forcedAttentionScale = 1.0f,
        .valueNorm = true,
        .keyAsValue = true,
        .ropeFreqsOnGlobalOnly = true,
        .allowsSharedKv = true,
        .allowsPerLayerInputs = true,
        .allowsLayerOutputScale = true,
        .expertsBesideDense = true,
    };
    return description;
}

}  // namespace gguf
