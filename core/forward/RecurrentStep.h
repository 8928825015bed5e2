#pragma once
// A Gated DeltaNet layer (Qwen3.5's linear attention), from the normed residual stream to
// ssm_out, as llama.cpp's build_layer_attn_linear with ggml's ssm_conv and gated_delta_net ops
// for one sequence starting from a zero conv state and a zero recurrent state.

#include "core/forward/PassContext.h"

namespace gguf {

// Only the output rows from `from` on are computed (PassContext::rowsReachingLogitsFrom); the
// rows before it are zero.
Status runGatedDeltaNet(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::int64_t from,
                        std::vector<float>& out);

}  // namespace gguf
