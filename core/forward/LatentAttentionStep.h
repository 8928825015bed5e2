#pragma once
// Multi-head latent attention (DeepSeek-V2/V3) as llama.cpp runs a file with split attn_k_b /
// attn_v_b: the no-rope part of each query head absorbed into the kv latent through attn_k_b,
// one shared latent head of (kv_lora + rope) keys and kv_lora values, each head's output
// expanded through attn_v_b, then attn_output.

#include "core/forward/PassContext.h"

namespace gguf {

// Only the output rows from `from` on are computed (PassContext::rowsReachingLogitsFrom); the
// rows before it are zero.
Status runLatentAttention(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::int64_t from,
                          std::vector<float>& out);

}  // namespace gguf
