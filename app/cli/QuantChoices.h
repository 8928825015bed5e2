#pragma once
// One meaning per name, for every command that quantizes in memory or on disk: --type names a
// ggml type (q4_K, iq2_xxs), --preset a llama-quantize preset (Q4_K_M, IQ2_XXS), each in any
// letter case. The older --simulate list may mix the two: a name only one of them knows means
// that one; a name both know (IQ2_XXS, Q4_0, Q8_0, ...) means the type when spelt as ggml spells
// it (iq2_xxs, q4_0) and is refused otherwise, with the two unambiguous spellings.

#include "core/recipe/QuantPresets.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct QuantChoice {
    std::string name;                          // as given
    std::uint32_t type = 0;                    // when preset is null
    const gguf::QuantPreset* preset = nullptr;
};

enum class QuantChoiceKind { Type, Preset, Either };

// "q1_0, q2_K, ...": the types the core quantizes to, for error messages.
std::string quantizableTypeNames();

// "q4_K,Q4_K_M" (comma-separated) -> the choices, or nullopt after setting `error`. `option`
// names the option in the error. Types must be ones the core quantizes to.
std::optional<std::vector<QuantChoice>> parseQuantChoices(const std::string& list, QuantChoiceKind kind, const std::string& option,
                                                          std::string& error);
