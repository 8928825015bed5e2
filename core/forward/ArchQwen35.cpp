// Qwen3.5 / 3.6 dense (src/models/qwen35.cpp): Gated DeltaNet recurrent layers beside gated full
// attention (every full_attention_interval-th layer, default 4), IMROPE on rope.dimension_count
// dims, QK-norm, and the norm before the FFN stored as post_attention_norm.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& qwen35BlockDescription()
{
    static const BlockDescription description{
        .architecture = "qwen35",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .gatedAttention = true,
        .multiSectionRope = true,
        .allowsNextN = true,
        .defaultFullAttentionInterval = 4,
        .feedForwardNorm = "post_attention_norm",
    };
    return description;
}

}  // namespace gguf
