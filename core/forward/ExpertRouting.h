#pragma once
// The router of an MoE layer, as llama.cpp's build_moe_ffn chooses and weighs experts: router
// logits (+ bias), softmax / sigmoid / softmax of the chosen, exp_probs_b added for the choice
// only, top-k (ggml_argsort_top_k: descending, stable), then renormalisation and scale.

#include "core/forward/PassContext.h"

namespace gguf {

// selected [tokens, used] expert ids, best first; weights [tokens, used] the weight of each.
Status routeTokens(PassContext& context, std::int64_t layer, const std::vector<float>& normed, std::vector<std::int32_t>& selected,
                   std::vector<float>& weights);

}  // namespace gguf
