// llama (dense) and Mixtral-style MoE llama, as llama.cpp's src/models/llama.cpp builds them:
// NORM RoPE (adjacent pairs), softmax gating with top-k and the selected weights renormalised
// (build_moe_ffn(..., norm_w = true, ..., LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX)).

#include "forward/BlockDescription.h"

namespace gguf {

const BlockDescription& llamaBlockDescription()
{
    static const BlockDescription description{
        .architecture = "llama",
        .rope = RopePairing::Adjacent,
        .gating = ExpertGating::Softmax,
        .normalizeExpertWeights = true,
        .allowsProjectionBiases = false,
        .allowsQkNorm = false,
    };
    return description;
}

}  // namespace gguf
