#pragma once
// The feed-forward branch of one layer, from the normed residual stream to the branch output
// (before any post-norm): a dense gated FFN (separate or fused gate/up) or routed experts, as
// llama.cpp's build_ffn and build_moe_ffn.

#include "core/forward/PassContext.h"

namespace gguf {

Status runDenseFeedForward(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out);

// `selected` receives [tokens, expertUsedCount] expert ids, best first.
Status runExpertFeedForward(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out,
                            std::vector<std::int32_t>& selected);

// The whole FFN branch from the residual stream (before its post-norm): the block's norm, then
// dense or routed experts, or gemma4's dense FFN and experts side by side.
Status runFeedForwardBranch(PassContext& context, std::int64_t layer, const std::vector<float>& residual, std::vector<float>& out,
                            std::vector<std::int32_t>& selected);

// gate = act(gate) * up on [rows, width] (the block's activation); `asGgml`: SiLU through ggml's
// vector exp (GgmlVectorMath.h) rather than libm's. A SiLU with a `limit` above 1e-6 (build_ffn's
// swiglu clamp) is min(silu(gate), limit) * clamp(up, -limit, limit).
void applyGatedActivation(FeedForwardActivation activation, float* gate, const float* up, std::int64_t rows, std::int64_t width, bool asGgml,
                          float limit = 0.0f);

}  // namespace gguf
