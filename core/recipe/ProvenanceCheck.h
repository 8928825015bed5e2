#pragma once
// Whether a file is exactly what llama-quantize makes from a source model for a preset (with an
// importance matrix when one is given), tensor for tensor: the same tensors in the same order,
// of the same shapes and types, with the same bytes. Types are compared first (cheap: no data
// read); then each tensor's bytes are made as convertWithRecipe makes them (which equal
// llama-quantize's) and compared with the file's as they stream, a row chunk at a time, so the
// first differing tensor stops the check. Metadata is not compared: llama-quantize writes the
// imatrix path as it was typed, which a later check cannot know.

#include "core/base/Result.h"
#include "core/gguf/Model.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/RecipeConversion.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

struct ProvenanceOptions {
    // The preset to check against; null: the one general.file_type names, else the one in the
    // file name.
    const QuantPreset* preset = nullptr;
    // --tensor-type rules and forced types, as llama-quantize was given them; `preset` and
    // `hasImatrix` are set by the check.
    RecipeOptions recipe;
    // How the bytes are made: executor, quantizer and importance lookup (the imatrix), cancel,
    // progress (elements of the source). `imatrix` (the provenance keys) is not used.
    RecipeConversionOptions conversion;
};

enum class ProvenanceDifferenceKind {
    Missing,  // a tensor llama-quantize writes is not in the file
    Extra,    // the file has a tensor llama-quantize does not write
    Shape,    // same name, another shape
    Type,     // same name and shape, another type
    Order,    // the same tensors, in another order than llama-quantize writes them
    Data,     // same type, other bytes
};
const char* provenanceDifferenceName(ProvenanceDifferenceKind kind);  // "missing", "extra", ...

struct ProvenanceDifference {
    ProvenanceDifferenceKind kind = ProvenanceDifferenceKind::Data;
    std::string tensor;
    std::uint32_t fileType = 0;      // the file's type for the tensor (not for Missing)
    std::uint32_t expectedType = 0;  // llama-quantize's (not for Extra)
    std::uint64_t byteOffset = 0;    // Data: the first differing byte, within the tensor's data
    std::uint64_t row = 0;           // Data: the row that byte is in
    std::string message;             // one sentence naming the tensor
};

struct ProvenanceCheck {
    const QuantPreset* preset = nullptr;
    std::string presetFrom;                 // "given", "general.file_type", "file name"
    bool withImatrix = false;
    std::size_t tensorCount = 0;            // tensors llama-quantize writes
    std::size_t typeDifferences = 0;        // tensors present in both whose shape or type differs
    std::size_t tensorsCompared = 0;        // tensors whose bytes were compared (all of them when identical)
    std::uint64_t bytesCompared = 0;
    std::optional<ProvenanceDifference> firstDifference;  // in llama-quantize's order

    bool identical() const { return !firstDifference; }
};

// Fails (rather than reporting a difference) when the check cannot be made: no preset known,
// a recipe llama-quantize would refuse (an imatrix is needed and none given), a tensor that
// cannot be made, an unreadable source or file.
Result<ProvenanceCheck> checkProvenance(const Model& file, const Model& source, const ProvenanceOptions& options);

// The answer in one sentence, as `recipe FILE --source S` and the Recipe page give it:
// "identical: every one of the 21 tensors has the type, the place and the bytes (1,234,567 in
// all) llama-quantize Q4_K_M gives it from this source[ with this importance matrix]", or
// "not identical: " and the first difference.
std::string provenanceVerdict(const ProvenanceCheck& check);
// What the check adds under a difference: how many tensors have another type or shape, how many
// before a data difference are identical; one line each.
std::vector<std::string> provenanceDetails(const ProvenanceCheck& check);
// Why the bytes may differ when only the imatrix is off (for a data difference): the file's own
// record of one (its quantize.imatrix.* keys) against the check's; empty when they agree.
std::string provenanceImatrixHint(const Model& file, const ProvenanceCheck& check);

}  // namespace gguf
