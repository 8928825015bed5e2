#pragma once
// The numbers a forward pass needs, read from a model's metadata (`<arch>.*` keys) and checked
// against its tensors, the way llama.cpp's llama_model_loader reads them, with its defaults: each
// key llama.cpp reads for the architecture, in the type it reads it (HyperparameterReader.h), and
// no key it does not read.

#include "core/base/Result.h"
#include "core/forward/BlockDescription.h"
#include "core/gguf/Model.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

// The attention and FFN shape of one layer. Filled for every architecture: from the single
// values for most, per layer for blocks with perLayerShapes (gemma4).
struct LayerShape {
    std::int64_t headCount = 0;
    std::int64_t headCountKv = 0;
    std::int64_t keyLength = 0;       // per head
    std::int64_t valueLength = 0;     // per head
    std::int64_t ropeDimensions = 0;  // rotated dimensions per head
    std::int64_t feedForwardLength = 0;
    bool sliding = false;
    std::int64_t kvSource = 0;  // the layer whose K/V this one attends to: itself unless shared
};

struct ModelHyperparameters {
    std::string architecture;
    const BlockDescription* block = nullptr;
    std::int64_t vocabularySize = 0;  // rows of token_embd.weight
    std::int64_t embeddingLength = 0;
    std::int64_t contextLength = 0;   // context_length (llama.cpp's n_ctx_train)
    std::int64_t layerCount = 0;
    std::int64_t nextnLayers = 0;     // NextN blocks stored after the trunk (nextn_predict_layers), not run
    std::int64_t feedForwardLength = 0;
    std::int64_t headCount = 0;
    std::int64_t headCountKv = 0;
    std::int64_t headDimension = 0;  // attention.key_length, default embedding / heads
    std::int64_t valueDimension = 0; // attention.value_length, default embedding / heads
    std::int64_t ropeDimensions = 0; // rope.dimension_count, default headDimension
    float ropeFreqBase = 10000.0f;
    float ropeFreqScale = 1.0f;      // 1 / rope.scaling.factor (linear and YaRN scaling)
    // YaRN (rope.scaling.type yarn), as llama_context sets it up: ext_factor 1, the attention
    // factor that cancels ggml's own magnitude correction, the correction dims from beta 32 / 1.
    bool ropeYarn = false;
    // What rope multiplies cos and sin by (llama_context's yarn_attn_factor): YaRN's factor above
    // times rope.scaling.attn_factor, which applies with or without YaRN.
    float ropeAttnFactor = 1.0f;
    float yarnBetaFast = 32.0f;
    float yarnBetaSlow = 1.0f;
    float yarnLogMultiplier = 0.0f;        // rope.scaling.yarn_log_multiplier as llama.cpp keeps it
    std::int64_t yarnOriginalContext = 0;  // rope.scaling.original_context_length, default context_length
    float rmsEpsilon = 1e-5f;
    float attentionScale = 0.0f;     // the scores' scale when the block sets one; 0 = 1/sqrt(key length)
    float attentionSoftcap = 0.0f;   // attn_logit_softcapping when the block applies one; 0 = none
    // Attention temperature (BlockDescription::attention.temperature): q after rope times
    // 1 + scale * ln(floor((pos + offset) / floor) + 1); scale 0 = none.
    float attentionTemperatureScale = 0.0f;
    float attentionTemperatureOffset = 0.0f;
    std::int64_t attentionTemperatureFloor = 0;
    float attentionValueScale = 0.0f;  // attention.value_scale when the block reads it and it is not 1; 0 = none
    float finalSoftcap = 0.0f;       // final_logit_softcapping; 0 = none
    // Sliding-window attention: window 0 = none; layer il is local when il % pattern < pattern - 1
    // (every layer when the pattern is 0), or as slidingLayers says.
    std::int64_t slidingWindow = 0;
    std::int64_t slidingPattern = 0;
    bool slidingChunked = false;  // the window is a chunk (llama4): query p sees keys from floor(p / window) * window
    float ropeFreqBaseSliding = 10000.0f;  // rope.freq_base_swa (or the block's default)
    float ropeFreqScaleSliding = 1.0f;
    std::array<int, 4> ropeSections{};  // rope.dimension_sections (multi-section rope), pairs per section
    // Hybrid stacks: layer il is recurrent (Gated DeltaNet) unless (il + 1) % interval == 0;
    // 0 = no recurrent layers. attention.recurrent_layers (a flag per layer) overrides it.
    std::int64_t fullAttentionInterval = 0;
    std::vector<char> recurrentLayers;  // [layerCount] from attention.recurrent_layers, else empty
    std::int64_t shortConvCache = 0;  // shortconv.l_cache: the short convolution's taps (lfm2)
    std::int64_t ssmConvKernel = 0;   // ssm.conv_kernel
    std::int64_t ssmStateSize = 0;    // ssm.state_size: key (and value) head size
    std::int64_t ssmGroupCount = 0;   // ssm.group_count: key heads
    std::int64_t ssmTimeStepRank = 0; // ssm.time_step_rank: value heads
    std::int64_t ssmInnerSize = 0;    // ssm.inner_size: value heads * value head size
    // Multi-head latent attention: ranks (q 0 = no q compression) and the real per-head sizes.
    std::int64_t qLoraRank = 0;
    std::int64_t kvLoraRank = 0;
    std::int64_t mlaKeyLength = 0;    // key_length_mla: no-rope + rope part of a head
    std::int64_t mlaValueLength = 0;  // value_length_mla
    std::int64_t leadingDenseLayers = 0;  // leading_dense_block_count: dense FFN before the MoE layers
    std::vector<char> expertLayers;       // [layerCount] which layers route, when not leadingDenseLayers alone
    std::int64_t expertCount = 0;    // 0 for a dense model
    std::int64_t expertUsedCount = 0;
    std::int64_t expertFeedForwardLength = 0;  // expert_feed_forward_length, default feedForwardLength
    std::int64_t sharedExpertFeedForwardLength = 0;  // expert_shared_feed_forward_length (or the block's default)
    std::int64_t expertGroupCount = 0;      // expert_group_count: > 1 restricts top-k to the best groups
    std::int64_t expertGroupUsedCount = 0;  // expert_group_used_count
    ExpertGating expertGating = ExpertGating::Softmax;
    bool normalizeExpertWeights = true;
    float expertWeightsScale = 0.0f; // expert_weights_scale; 0 = none
    // swiglu_clamp_exp / _shexp [every stored block] when the block reads them, else empty: the
    // SwiGLU limit of the routed experts / of the shared expert and dense FFN; 0 = none.
    std::vector<float> swigluClampExperts;
    std::vector<float> swigluClampShared;
    bool tiedOutput = false;         // no output.weight: logits use token_embd.weight
    std::vector<LayerShape> layers;  // [layerCount]
    std::int64_t perLayerInputLength = 0;  // embedding_length_per_layer_input (0 = none)
    std::int64_t sharedKvLayers = 0;       // attention.shared_kv_layers

    const LayerShape& layerShape(std::int64_t layer) const { return layers[static_cast<std::size_t>(layer)]; }
    // Some later layer attends to this layer's K/V.
    bool kvReadLater(std::int64_t layer) const
    {
        for (std::size_t il = static_cast<std::size_t>(layer) + 1; il < layers.size(); ++il)
            if (layers[il].kvSource == layer)
                return true;
        return false;
    }

    bool isMixtureOfExperts() const { return expertCount > 0; }
    bool isExpertLayer(std::int64_t layer) const
    {
        if (!expertLayers.empty())
            return expertLayers[static_cast<std::size_t>(layer)] != 0;
        return expertCount > 0 && layer >= leadingDenseLayers;
    }
    bool isRecurrentLayer(std::int64_t layer) const
    {
        if (!recurrentLayers.empty())
            return recurrentLayers[static_cast<std::size_t>(layer)] != 0;
        return fullAttentionInterval > 0 && (layer + 1) % fullAttentionInterval != 0;
    }
    bool isSlidingLayer(std::int64_t layer) const
    {
        if (!slidingLayers.empty())
            return slidingWindow > 0 && slidingLayers[static_cast<std::size_t>(layer)] != 0;
        // llama_hparams::set_swa_pattern: period 0 makes every layer slide.
        return slidingWindow > 0 && (slidingPattern == 0 || layer % slidingPattern < slidingPattern - 1);
    }
    std::vector<char> slidingLayers;  // per layer from a per-layer sliding_window_pattern, else empty
};

// Fails naming the key or tensor when the model is not one the pass can run: an architecture
// without a block description; a key llama.cpp requires missing; a key of another type than
// llama.cpp reads, out of range, not finite, or an array of the wrong length; values that do not
// fit each other or the tensors; what the pass does not run (rope scaling other than
// none/linear/yarn, different values per layer where the block reads one).
Result<ModelHyperparameters> readHyperparameters(const Model& model);

}  // namespace gguf
