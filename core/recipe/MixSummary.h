#pragma once
// A quantized file's mix in figures and plain words, for `recipe FILE`: the bits per weight its
// label promises (the main type's: an IQ2_S file starts from iq2_xs) against those it has (all
// tensor data over all weights), the tensors that fell back to another type because their rows
// fit no block of the type llama-quantize chose (its "not divisible by 256"), and a sentence
// such as "mostly q4_K (86% of the weights); q6_K for output, attn_v in 1 of 2 layers".

#include "core/gguf/Model.h"
#include "core/recipe/RecipeAudit.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct MixFallback {
    std::string tensor;
    std::int64_t rowLength = 0;
    std::uint32_t chosenType = 0;    // llama-quantize's choice, whose blocks the row does not fit
    std::uint32_t fallbackType = 0;  // what it writes instead
    std::uint32_t storedType = 0;    // what the file holds
};

struct MixSummary {
    std::uint32_t nominalType = 0;        // the label's preset's default type, else the dominant type
    double nominalBitsPerWeight = 0.0;    // that type's
    double effectiveBitsPerWeight = 0.0;  // every tensor's bytes over every weight
    double quantizedBitsPerWeight = 0.0;  // the same over the tensors llama-quantize quantizes
    bool fallbacksKnown = false;          // a preset was known to tell which tensors fell back
    std::vector<MixFallback> fallbacks;
    std::string label;
};

// `audit` is auditRecipe(model): its preset and expected recipe tell the fallbacks.
MixSummary summarizeMix(const Model& model, const RecipeAudit& audit);

}  // namespace gguf
