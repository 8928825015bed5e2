#pragma once
// The hyperparameters that shape llama.cpp's compute graph beyond the attention layout of
// EstimateShape: experts and their routing, leading dense layers, softcaps, recurrent layers'
// sizes, per-layer inputs, rope positions. Read from the header with llama.cpp's defaults for
// the architecture (llama_model::load_hparams at 80fb11a).

#include "core/estimate/EstimateShape.h"
#include "core/gguf/Model.h"

#include <cstdint>
#include <vector>

namespace gguf {

enum class ExpertGating { Softmax = 1, Sigmoid = 2, SoftmaxWeight = 3 };

struct GraphHyperparameters {
    std::int64_t graphLayers = 0;  // layers the graph runs (a NextN/MTP block is not)
    std::int64_t experts = 0;
    std::int64_t expertsUsed = 0;
    std::int64_t expertGroups = 0;
    std::int64_t expertGroupsUsed = 0;
    ExpertGating gating = ExpertGating::Softmax;
    bool normalizeExpertWeights = false;
    bool scaleExpertWeights = false;  // a scale other than 0 and 1
    bool weightsBeforeExperts = false;  // llama4: chosen on the logits, the weights multiply the experts' input
    std::int64_t denseLeadingLayers = 0;
    bool attentionSoftcap = false;
    bool finalSoftcap = false;
    bool attentionTemperature = false;  // DeepSeek's per-position query scale input
    bool attentionValueScale = false;   // mimo2: the attention's output scaled by attention.value_scale (not 1)
    std::int64_t positionsPerToken = 1;  // 4 for multi-section rope
    std::int64_t ropeDimensions = 0;     // n_rot
    std::int64_t mlaKeyLength = 0;       // DeepSeek's per-head sizes before absorption (nope + rope, v)
    std::int64_t mlaValueLength = 0;
    // Gated DeltaNet (Qwen3.5): d_inner, d_state, groups (key heads), value heads, conv kernel.
    std::int64_t ssmInner = 0;
    std::int64_t ssmState = 0;
    std::int64_t ssmGroups = 0;
    std::int64_t ssmValueHeads = 0;
    std::int64_t ssmConvKernel = 0;
    std::int64_t embeddingPerLayer = 0;  // Gemma 3n/4 per-layer inputs, values per layer
    // step35's SwiGLU limits per layer (swiglu_clamp_exp: routed experts; _shexp: the shared
    // expert and the dense FFN); empty where not read. Above 1e-6 the SwiGLU is clamped ops.
    std::vector<float> swigluClampExperts;
    std::vector<float> swigluClampShared;
    bool swigluClamped(std::size_t il, bool routed) const
    {
        const std::vector<float>& limits = routed ? swigluClampExperts : swigluClampShared;
        return il < limits.size() && limits[il] > 1e-6f;
    }
};

GraphHyperparameters readGraphHyperparameters(const Model& model, const EstimateShape& shape);

}  // namespace gguf
