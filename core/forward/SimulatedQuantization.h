#pragma once
// A WeightTransform that quantizes each weight matrix and dequantizes it again, so the forward
// pass runs "the reference quantized in memory" without writing a file. The type of each tensor
// is either what `convert --type` would choose for one target type (QuantizationPolicy.h) or a
// per-tensor type map (a llama-quantize preset: recipeTypeMap, recipe/LlamaQuantRecipe.h); with importance
// weights each expert's rows are quantized as llama-quantize --imatrix quantizes them, so the
// values equal those of the file it would write, bit for bit.

#include "core/forward/WeightLoader.h"
#include "core/quantize/ImportanceWeights.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace gguf {

struct SimulationSpec {
    std::uint32_t targetType = 0;  // used when `recipeTypes` is empty
    // Tensor name -> type for the tensors a recipe re-encodes; the others are kept as stored.
    std::shared_ptr<const std::unordered_map<std::string, std::uint32_t>> recipeTypes;
    ImportanceLookup importance;   // empty: no importance matrix
};

// Fails later, on the first tensor, when the type has no quantizer (callers check canQuantize)
// or needs importance weights that are not given.
// The quantization runs on `executor` (null: the calling thread alone), which must outlive the
// transform.
WeightTransform simulatedQuantization(std::uint32_t targetType, TaskExecutor* executor);
WeightTransform simulatedQuantization(SimulationSpec spec, TaskExecutor* executor);

}  // namespace gguf
