// Phi-3 (src/models/phi3.cpp): fused attn_qkv and fused gate/up (ffn_up = [gate; up], SwiGLU of
// the two halves), NEOX RoPE, q scaled by 1/sqrt(head) before q.k, no sliding window (llama.cpp
// turns a `sliding_window` key off for phi3).

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& phi3BlockDescription()
{
    static const BlockDescription description{
        .architecture = "phi3",
        .rope = RopePairing::Halves,
        .fusedQkv = true,
        .scaleQueryFirst = true,
        .slidingWindows = SlidingWindows::Disabled,
        .fusedGateUp = true,
    };
    return description;
}

}  // namespace gguf
