// Seed-OSS (src/models/seed-oss.cpp): the qwen2 block with a free head size: optional q/k/v
// biases (no attn_output.bias: llama.cpp's loader refuses a file with one), NEOX RoPE over the whole head (llama.cpp asserts n_rot = head size), scale
// 1/sqrt(head size), and the FFN's norm stored as post_attention_norm (HF's
// post_attention_layernorm).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& seedOssBlockDescription()
{
    static const BlockDescription description{
        .architecture = "seed_oss",
        .rope = RopePairing::Halves,
        .allowsProjectionBiases = true,
        .ropeWholeHead = true,
        .feedForwardNorm = "post_attention_norm",
        .attention = {.refusesOutputBias = true},
    };
    return description;
}

}  // namespace gguf
