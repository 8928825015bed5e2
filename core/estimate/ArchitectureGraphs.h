#pragma once
// llama.cpp's graph of each architecture the estimate models (src/models/<arch>.cpp at 80fb11a),
// built from LlmGraph's pieces in llama.cpp's order, for the worst-case ubatch.

#include "core/estimate/LlmGraph.h"

#include <string_view>

namespace gguf {

// Llama, Qwen2, Qwen3, Qwen3-MoE, Phi-3, GLM-4.5, gpt-oss and the 2026 pre-norm decoders
// (DecoderGraphs.cpp).
void buildDecoderGraph(LlmGraph& m);
// Gemma 2, 3 and 4 (GemmaGraphs.cpp).
void buildGemmaGraph(LlmGraph& m);
// DeepSeek-V2/V3 with latent attention (DeepSeekGraph.cpp).
void buildDeepSeekGraph(LlmGraph& m);
// Qwen3.5 and Qwen3.5-MoE: Gated DeltaNet layers beside gated attention (Qwen35Graph.cpp).
void buildQwen35Graph(LlmGraph& m);
// LFM2: gated short-convolution layers beside attention (Lfm2Graph.cpp).
void buildLfm2Graph(LlmGraph& m);

// The recurrent state's inputs of a hybrid graph (build_inp_rs, one sequence), and build_rs:
// the ubatch's state rows of `states` (`size` values each), read for the layer (Qwen35Graph.cpp).
struct RecurrentInputs {
    TensorId main = kNoTensor;   // the state rows of the ubatch's sequences (s_copy_main)
    TensorId extra = kNoTensor;  // the others (s_copy_extra): none with one sequence
};
RecurrentInputs recurrentInputs(ComputeGraph& g);
TensorId readState(ComputeGraph& g, const RecurrentInputs& in, TensorId states, std::int64_t size);

using GraphBuilder = void (*)(LlmGraph&);
// The builder of `architecture`, or nullptr.
GraphBuilder graphBuilderFor(std::string_view architecture);

}  // namespace gguf
