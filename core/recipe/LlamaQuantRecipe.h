#pragma once
// The type llama-quantize (llama.cpp 80fb11ac, src/llama-quant.cpp) gives every tensor of a
// model for a preset: the preset's default type, bent per tensor by its rules (attn_v and
// ffn_down get more bits in some layers, the output and embedding tensors are handled apart,
// MoE and grouped-query models get their own bumps), --tensor-type rules first when given, and
// a fallback type when a row does not fit the type's blocks. Tensors llama-quantize does not
// quantize (1-D, norms, MoE routers, ...) keep their type. The tensors come out in the order
// llama-quantize processes and writes them (by layer, then by name, non-layer tensors first),
// which its rules depend on: they count attn_v tensors as they go.

#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"
#include "core/recipe/ModelShape.h"
#include "core/recipe/QuantPresets.h"
#include "core/recipe/TensorTypeRules.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gguf {

struct RecipeOptions {
    const QuantPreset* preset = nullptr;
    bool hasImatrix = false;            // an importance matrix is given (some rules and the refusal depend on it)
    std::vector<TensorTypeRule> rules;  // --tensor-type overrides, first match wins
    bool pure = false;                  // --pure: no per-tensor rules, the default type everywhere
    // --token-embedding-type / --output-tensor-type: the type of token_embd / output.weight,
    // before any rule and without a fallback (a tied token_embd follows the output's type).
    std::optional<std::uint32_t> tokenEmbeddingType = std::nullopt;
    std::optional<std::uint32_t> outputTensorType = std::nullopt;
};

struct RecipeTensor {
    const TensorInfo* source = nullptr;
    std::uint32_t typeId = 0;         // the type written
    bool quantizable = false;         // llama-quantize's tensor_allows_quantization
    bool converted = false;           // typeId differs from the stored type: the data is re-encoded
    bool manual = false;              // chosen by a --tensor-type rule or a type option
    bool fellBack = false;            // the row did not fit the chosen type's blocks
    std::uint32_t fellBackFrom = 0;   // when fellBack: the type chosen before the fallback
    bool requiresImatrix = false;     // llama-quantize refuses this type here without an imatrix
    std::uint64_t bytes = 0;          // size in the output
    std::string note;                 // why it is kept or fell back; empty otherwise
};

struct Recipe {
    const QuantPreset* preset = nullptr;
    bool hasImatrix = false;
    std::vector<RecipeTensor> tensors;   // in llama-quantize's order
    std::uint64_t totalBytes = 0;        // tensor data (unpadded)
    std::uint64_t totalElements = 0;
    std::size_t fallbackCount = 0;
    // Set when llama-quantize would refuse this quantization (no imatrix for a type that needs
    // one), in its words; the types are still filled in.
    std::string refusal;

    double bitsPerWeight() const { return totalElements ? 8.0 * double(totalBytes) / double(totalElements) : 0.0; }
    const RecipeTensor* find(std::string_view name) const;
};

// Fails where llama-quantize throws while choosing: an invalid rule regex, an MoE ffn tensor
// whose name has no valid layer, a row no fallback type fits.
Result<Recipe> computeRecipe(const ModelShape& shape, const std::vector<TensorInfo>& tensors, const RecipeOptions& options);

// llama.cpp's weight_name_comparer: by the number after "blk." (-1 without), then by name.
bool llamaTensorOrderLess(std::string_view a, std::string_view b);

// llama-quant.cpp's tensor_allows_quantization with default parameters.
bool llamaQuantizeAllows(std::string_view name, std::uint32_t nDims);

// The tensors `recipe` converts and the types it gives them: a simulated quantization's
// per-tensor types (forward/SimulatedQuantization.h, SimulationSpec::recipeTypes).
std::shared_ptr<const std::unordered_map<std::string, std::uint32_t>> recipeTypeMap(const Recipe& recipe);

}  // namespace gguf
