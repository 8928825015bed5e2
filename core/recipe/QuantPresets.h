#pragma once
// The presets llama-quantize offers (its QUANT_OPTIONS): a name such as "Q4_K_M", the llama_ftype
// number it writes to general.file_type, and the default tensor type the per-tensor rules start
// from (llama_ftype_get_default_type: an IQ2_S file starts from iq2_xs, IQ3_M from iq3_s).

#include "core/types/GgmlType.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace gguf {

struct QuantPreset {
    std::string_view name;     // as llama-quantize spells it
    std::uint32_t fileType;    // llama_ftype
    GgmlTypeId defaultType;    // where the per-tensor choice starts
    bool alias = false;        // "Q4_K" for Q4_K_M and the like: accepted, not listed twice
};

// Every preset, in llama-quantize's listing order, aliases included.
std::span<const QuantPreset> quantPresets();
// By name (case-insensitive) or by llama_ftype number written as digits; nullptr if unknown.
const QuantPreset* findQuantPreset(std::string_view nameOrNumber);
// The non-alias preset that writes `fileType`, or nullptr.
const QuantPreset* presetForFileType(std::uint64_t fileType);

}  // namespace gguf
