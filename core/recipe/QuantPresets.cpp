#include "core/recipe/QuantPresets.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gguf {

namespace {

using T = GgmlTypeId;

// Order and names as tools/quantize/quantize.cpp lists them (llama.cpp 80fb11ac); the ftype
// numbers are llama.h's llama_ftype.
constexpr std::array<QuantPreset, 38> kPresets{{
    {"Q1_0", 40, T::Q1_0},          {"Q2_0", 41, T::Q2_0},
    {"Q4_0", 2, T::Q4_0},           {"Q4_1", 3, T::Q4_1},
    {"MXFP4_MOE", 38, T::MXFP4},    {"Q5_0", 8, T::Q5_0},
    {"Q5_1", 9, T::Q5_1},           {"IQ2_XXS", 19, T::IQ2_XXS},
    {"IQ2_XS", 20, T::IQ2_XS},      {"IQ2_S", 28, T::IQ2_XS},
    {"IQ2_M", 29, T::IQ2_S},        {"IQ1_S", 24, T::IQ1_S},
    {"IQ1_M", 31, T::IQ1_M},        {"TQ1_0", 36, T::TQ1_0},
    {"TQ2_0", 37, T::TQ2_0},        {"Q2_K", 10, T::Q2_K},
    {"Q2_K_S", 21, T::Q2_K},        {"IQ3_XXS", 23, T::IQ3_XXS},
    {"IQ3_S", 26, T::IQ3_S},        {"IQ3_M", 27, T::IQ3_S},
    {"Q3_K", 12, T::Q3_K, true},    {"IQ3_XS", 22, T::IQ3_S},
    {"Q3_K_S", 11, T::Q3_K},        {"Q3_K_M", 12, T::Q3_K},
    {"Q3_K_L", 13, T::Q3_K},        {"IQ4_NL", 25, T::IQ4_NL},
    {"IQ4_XS", 30, T::IQ4_XS},      {"Q4_K", 15, T::Q4_K, true},
    {"Q4_K_S", 14, T::Q4_K},        {"Q4_K_M", 15, T::Q4_K},
    {"Q5_K", 17, T::Q5_K, true},    {"Q5_K_S", 16, T::Q5_K},
    {"Q5_K_M", 17, T::Q5_K},        {"Q6_K", 18, T::Q6_K},
    {"Q8_0", 7, T::Q8_0},           {"F16", 1, T::F16},
    {"BF16", 32, T::BF16},          {"F32", 0, T::F32},
}};

bool sameLetters(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::span<const QuantPreset> quantPresets()
{
    return kPresets;
}

const QuantPreset* findQuantPreset(std::string_view nameOrNumber)
{
    for (const QuantPreset& preset : kPresets)
        if (sameLetters(preset.name, nameOrNumber))
            return &preset;
    if (!nameOrNumber.empty() && nameOrNumber.size() <= 3
        && std::all_of(nameOrNumber.begin(), nameOrNumber.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        std::uint32_t number = 0;
        for (char c : nameOrNumber)
            number = number * 10 + static_cast<std::uint32_t>(c - '0');
        return presetForFileType(number);
    }
    return nullptr;
}

const QuantPreset* presetForFileType(std::uint64_t fileType)
{
    for (const QuantPreset& preset : kPresets)
        if (!preset.alias && preset.fileType == fileType)
            return &preset;
    return nullptr;
}

}  // namespace gguf
