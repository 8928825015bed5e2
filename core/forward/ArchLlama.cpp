// llama (dense, Llama 3's rope_freqs and GQA) and Mixtral-style MoE llama, as llama.cpp's
// src/models/llama.cpp builds them: NORM RoPE (adjacent pairs), softmax gating with top-k and the
// selected weights renormalised (build_moe_ffn(..., norm_w = true, ..., SOFTMAX)).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& llamaBlockDescription()
{
    static const BlockDescription description{
        .architecture = "llama",
        .rope = RopePairing::Adjacent,
        .ropeWholeHead = true,
        .gating = ExpertGating::Softmax,
        .expertWidth = ExpertWidth::FeedForwardLength,
        .normalizeExpertWeights = true,
        .readsVocabSize = true,
    };
    return description;
}

}  // namespace gguf
