#pragma once
// The numbers a forward pass needs, read from a model's metadata (`<arch>.*` keys) and checked
// against its tensors, the way llama.cpp's llama_model_loader reads them, with its defaults.

#include "base/Result.h"
#include "forward/BlockDescription.h"
#include "gguf/Model.h"

#include <cstdint>
#include <string>

namespace gguf {

struct ModelHyperparameters {
    std::string architecture;
    const BlockDescription* block = nullptr;
    std::int64_t vocabularySize = 0;  // rows of token_embd.weight
    std::int64_t embeddingLength = 0;
    std::int64_t layerCount = 0;
    std::int64_t feedForwardLength = 0;
    std::int64_t headCount = 0;
    std::int64_t headCountKv = 0;
    std::int64_t headDimension = 0;  // attention.key_length, default embedding / heads
    std::int64_t ropeDimensions = 0; // rope.dimension_count, default headDimension
    float ropeFreqBase = 10000.0f;
    float ropeFreqScale = 1.0f;      // 1 / rope.scaling.factor for linear scaling
    float rmsEpsilon = 1e-5f;
    float attentionScale = 0.0f;     // attention.scale; 0 = 1/sqrt(headDimension)
    std::int64_t expertCount = 0;    // 0 for a dense model
    std::int64_t expertUsedCount = 0;
    float expertWeightsScale = 0.0f; // expert_weights_scale; 0 = none
    bool tiedOutput = false;         // no output.weight: logits use token_embd.weight

    bool isMixtureOfExperts() const { return expertCount > 0; }
};

// Fails naming the key or tensor when the model is not one the pass can run: an architecture
// without a block description, a missing or inconsistent hyperparameter, rope scaling other
// than none/linear, per-layer head counts.
Result<ModelHyperparameters> readHyperparameters(const Model& model);

}  // namespace gguf
