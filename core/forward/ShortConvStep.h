#pragma once
// LFM2's short-convolution token mixer (src/models/lfm2.cpp build_shortconv_block), from the
// normed residual stream to shortconv.out_proj, for one sequence from a zero conv state:
// [b, c, x] = in_proj . h, then c * conv(b * x) with a causal depthwise kernel over the last
// shortconv.l_cache positions (ggml_ssm_conv, no bias, no activation).

#include "core/forward/PassContext.h"

namespace gguf {

// Only the output rows from `from` on are computed (PassContext::rowsReachingLogitsFrom); the
// rows before it are zero.
Status runShortConv(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::int64_t from, std::vector<float>& out);

}  // namespace gguf
