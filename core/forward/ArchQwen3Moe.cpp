// Qwen3-MoE (src/models/qwen3moe.cpp): the Qwen3 attention with experts only (no dense FFN, no
// shared expert), softmax router, top-k weights renormalised (hard-coded, no key).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& qwen3MoeBlockDescription()
{
    static const BlockDescription description{
        .architecture = "qwen3moe",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::KeyOrPerUsed,
        .normalizeExpertWeights = true,
    };
    return description;
}

}  // namespace gguf
