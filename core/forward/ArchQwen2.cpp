// Qwen2 / Qwen2.5 (src/models/qwen2.cpp): the llama block with NEOX RoPE and optional biases on
// the q, k and v projections.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& qwen2BlockDescription()
{
    static const BlockDescription description{
        .architecture = "qwen2",
        .rope = RopePairing::Halves,
        .allowsProjectionBiases = true,
    };
    return description;
}

}  // namespace gguf
