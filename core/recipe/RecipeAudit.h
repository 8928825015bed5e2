#pragma once
// What a file says it is against what it stores: the label in general.file_type and the preset
// named in the file name, the type that really holds most of the weights, and, for a known
// preset, every tensor whose stored type differs from what llama-quantize would have chosen for
// this model. The quantize.imatrix.* keys llama-quantize writes show whether (and with what)
// an importance matrix was used.

#include "core/gguf/Model.h"
#include "core/recipe/LlamaQuantRecipe.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

struct RecipeDifference {
    std::string tensor;
    std::uint32_t storedType = 0;
    std::uint32_t expectedType = 0;
};

struct RecipeAudit {
    std::optional<std::uint64_t> fileType;       // general.file_type
    std::string fileTypeName;                    // "MOSTLY_Q4_K_M", empty if unknown
    const QuantPreset* labelPreset = nullptr;    // the preset that writes fileType
    std::string fileName;                        // base name of the (first) file
    const QuantPreset* namePreset = nullptr;     // a preset named in the file name ("...-Q4_K_M.gguf")
    std::uint32_t dominantType = 0;              // the quantizable tensors' type with the most bytes
    double dominantShare = 0.0;                  // its share of those bytes, 0..1
    // The preset compared against (label first, else the name), its recipe and the differences.
    const QuantPreset* comparedPreset = nullptr;
    bool assumedImatrix = false;                 // quantize.imatrix.* keys present
    std::optional<Recipe> expected;
    std::string expectedError;                   // why no recipe could be computed
    std::vector<RecipeDifference> differences;
    std::vector<std::pair<std::string, std::string>> imatrixKeys;  // quantize.imatrix.* (key, value as text)
    std::vector<std::string> findings;           // one sentence each, the audit's verdicts

    bool matchesPreset() const { return comparedPreset && expected && differences.empty(); }
};

// The preset named in a file name: the longest preset name found between separators
// ('-', '_', '.', or the ends), case-insensitive; nullptr if none.
const QuantPreset* presetInFileName(std::string_view fileName);

RecipeAudit auditRecipe(const Model& model);

}  // namespace gguf
