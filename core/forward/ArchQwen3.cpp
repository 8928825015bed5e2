// Qwen3 dense (src/models/qwen3.cpp): NEOX RoPE, RMSNorm of each q and k head before RoPE
// (attn_q_norm / attn_k_norm), head size from key_length (not n_embd / n_head).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& qwen3BlockDescription()
{
    static const BlockDescription description{
        .architecture = "qwen3",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
    };
    return description;
}

}  // namespace gguf
