// Gemma 3 (src/models/gemma3.cpp): Gemma 2's block with per-head q/k RMSNorm and no attention
// softcap; sliding window only when the file has `sliding_window` (pattern default 6), local
// layers with their own rope base (default 10000) and no linear scaling; final softcap only when
// the key is present.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& gemma3BlockDescription()
{
    static const BlockDescription description{
        .architecture = "gemma3",
        .rope = RopePairing::Halves,
        .scaleQueryFirst = true,
        .allowsQkNorm = true,
        .slidingWindows = SlidingWindows::WhenWindowKey,
        .defaultSlidingPattern = 6,
        .slidingRope = SlidingRope::Default10000,
        .finalSoftcap = FinalSoftcap::Optional,
        .wideQueryScaleLayers = 62,
        .embeddingScaled = true,
        .postNorms = true,
        .activation = FeedForwardActivation::Gelu,
    };
    return description;
}

}  // namespace gguf
