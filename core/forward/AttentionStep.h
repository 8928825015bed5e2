#pragma once
// The attention branch of one layer: from the normed residual stream to the output projection
// (before any post-norm), as llama.cpp's build_qkv + rope + build_attn (no flash attention).

#include "core/forward/PassContext.h"

namespace gguf {

// Only the output rows from `from` on are computed (PassContext::rowsReachingLogitsFrom); the
// rows before it are zero.
Status runAttention(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::int64_t from,
                    std::vector<float>& out);

}  // namespace gguf
