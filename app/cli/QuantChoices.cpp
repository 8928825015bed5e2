#include "QuantChoices.h"

#include "core/quantize/Quantize.h"
#include "core/types/GgmlType.h"

#include <sstream>

std::string quantizableTypeNames()
{
    std::string names;
    for (const gguf::TypeTraits* type : gguf::quantizableTypes())
        names += (names.empty() ? "" : ", ") + std::string(type->name);
    return names;
}

std::optional<std::vector<QuantChoice>> parseQuantChoices(const std::string& list, QuantChoiceKind kind, const std::string& option,
                                                          std::string& error)
{
    std::vector<QuantChoice> choices;
    std::stringstream stream(list);
    std::string name;
    while (std::getline(stream, name, ',')) {
        if (name.empty())
            continue;
        const gguf::TypeTraits* type = kind == QuantChoiceKind::Preset ? nullptr : gguf::findTypeByName(name);
        const gguf::QuantPreset* preset = kind == QuantChoiceKind::Type ? nullptr : gguf::findQuantPreset(name);
        if (type && preset) {
            if (type->name != name) {
                error = "'" + name + "' in " + option + " is both the ggml type " + type->name + " and the llama-quantize preset "
                      + std::string(preset->name) + ": say --type " + type->name + " or --preset " + std::string(preset->name);
                return std::nullopt;
            }
            preset = nullptr;  // spelt as ggml spells the type
        }
        if (preset) {
            choices.push_back({name, 0, preset});
            continue;
        }
        if (!type) {
            error = kind == QuantChoiceKind::Preset ? "unknown preset '" + name + "' in " + option
                                                    : "unknown type '" + name + "' in " + option
                                                          + (kind == QuantChoiceKind::Either ? " (neither a ggml type nor a llama-quantize preset)" : "");
            return std::nullopt;
        }
        if (!gguf::canQuantize(type->id)) {
            error = "cannot quantize to " + std::string(type->name) + " (" + option + "); the core quantizes to " + quantizableTypeNames();
            return std::nullopt;
        }
        choices.push_back({name, type->id, nullptr});
    }
    if (choices.empty()) {
        error = option + " needs at least one name";
        return std::nullopt;
    }
    return choices;
}
