#pragma once
// Gemma 4's per-layer inputs (E2B / E4B, embedding_length_per_layer_input > 0) and the scale of
// each layer's output, as src/models/gemma4-iswa.cpp builds them:
//  - before the first layer, for each token: per_layer_token_embd's row * sqrt(n_pl) plus
//    rms_norm(per_layer_model_proj . embedding / sqrt(n_embd)) * per_layer_proj_norm, per layer
//    chunk of n_pl, the sum times 1/sqrt(2);
//  - after each layer's FFN: residual += post_norm(proj . (gelu(inp_gate . residual) * input_l)),
//    then residual *= layer_output_scale when the file has it.

#include "core/forward/PassContext.h"

#include <span>

namespace gguf {

// Fills context.perLayerInputs from the tokens and the (scaled) embeddings; nothing when the
// model has no per-layer inputs.
Status preparePerLayerInputs(PassContext& context, std::span<const std::int32_t> tokens, const std::vector<float>& embedded);

// The end of a layer after its FFN branch was added: the per-layer input and the output scale.
Status finishLayer(PassContext& context, std::int64_t layer, std::vector<float>& residual);

}  // namespace gguf
