// Gemma 2 (src/models/gemma2.cpp): embeddings * sqrt(n_embd), NEOX RoPE, q scaled first,
// attention softcap (default 50) and final softcap (default 30), post-norms on both branches,
// GELU (ggml's f16 table), sliding window 4096 on even layers by default, with the global rope
// base and scale; always tied (output.weight is never read).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& gemma2BlockDescription()
{
    static const BlockDescription description{
        .architecture = "gemma2",
        .rope = RopePairing::Halves,
        .scaleQueryFirst = true,
        .slidingWindows = SlidingWindows::Always,
        .defaultSlidingWindow = 4096,
        .defaultSlidingPattern = 2,
        .slidingRope = SlidingRope::SameAsGlobal,
        .attentionSoftcap = true,
        .defaultAttentionSoftcap = 50.0f,
        .finalSoftcap = FinalSoftcap::Always,
        .defaultFinalSoftcap = 30.0f,
        .wideQueryScaleLayers = 46,
        .embeddingScaled = true,
        .postNorms = true,
        .activation = FeedForwardActivation::Gelu,
    };
    return description;
}

}  // namespace gguf
