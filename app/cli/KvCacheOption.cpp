#include "KvCacheOption.h"

#include "ModelOpening.h"
#include "core/types/GgmlType.h"

#include <utility>

std::optional<gguf::KvCacheSettings> kvCacheSettingsOrReport(const CliArguments& args)
{
    gguf::KvCacheSettings settings;
    if (const auto mode = args.value("--flash-attn")) {
        if (*mode == "on")
            settings.flashAttention = gguf::FlashAttention::On;
        else if (*mode == "off")
            settings.flashAttention = gguf::FlashAttention::Off;
        else if (*mode != "auto") {
            reportFailure("--flash-attn takes on, off or auto, not '" + shown(*mode) + "'", 2);
            return std::nullopt;
        }
    }
    for (const auto& [flag, target] : {std::pair{"--kv", 0}, std::pair{"--kv-k", 1}, std::pair{"--kv-v", 2}}) {
        const auto name = args.value(flag);
        if (!name)
            continue;
        const gguf::TypeTraits* type = gguf::findTypeByName(*name);
        if (!type || !gguf::isKvCacheType(type->id)) {
            reportFailure(std::string(flag) + ": unknown cache type '" + shown(*name) + "' (llama.cpp's: " + gguf::kvCacheTypeNames() + ")", 2);
            return std::nullopt;
        }
        if (target != 2)
            settings.keyType = type->id;
        if (target != 1)
            settings.valueType = type->id;
    }
    return settings;
}

bool hasKvCacheOption(const CliArguments& args)
{
    return args.has("--kv") || args.has("--kv-k") || args.has("--kv-v") || args.has("--flash-attn");
}
