#include "ActivationOption.h"

#include "KvCacheOption.h"
#include "core/base/JsonWriter.h"
#include "core/forward/ForwardPass.h"
#include "core/types/GgmlType.h"

std::optional<PassArithmetic> passArithmeticOrReport(const CliArguments& args)
{
    const int given = int(args.has("--f32-activations")) + int(args.has("--q8-activations")) + int(args.has("--llama-activations"));
    if (given > 1) {
        reportFailure("--f32-activations, --q8-activations and --llama-activations exclude each other", 2);
        return std::nullopt;
    }
    PassArithmetic arithmetic;
    if (args.has("--f32-activations"))
        arithmetic.activations = gguf::ActivationArithmetic::Float32;
    else if (args.has("--q8-activations"))
        arithmetic.activations = gguf::ActivationArithmetic::QuantizedAsLlamaCpp;
    const auto cache = kvCacheSettingsOrReport(args);
    if (!cache)
        return std::nullopt;
    if (arithmetic.activations != gguf::ActivationArithmetic::LlamaCpp && hasKvCacheOption(args)) {
        reportFailure(std::string("--kv, --kv-k, --kv-v and --flash-attn set llama.cpp's KV cache and attention (the default arithmetic); ")
                          + (args.has("--f32-activations") ? "--f32-activations" : "--q8-activations")
                          + " keeps f32 keys and values and plain f32 attention",
                      2);
        return std::nullopt;
    }
    arithmetic.kvCache = *cache;
    return arithmetic;
}

namespace {

gguf::ForwardOptions forwardOptionsOf(const PassArithmetic& arithmetic)
{
    gguf::ForwardOptions options;
    options.activations = arithmetic.activations;
    options.kvCache = arithmetic.kvCache;
    return options;
}

}  // namespace

std::string passArithmeticText(const PassArithmetic& arithmetic)
{
    return std::string("activations: ") + gguf::activationArithmeticName(arithmetic.activations)
         + ", attention: " + gguf::attentionArithmeticName(forwardOptionsOf(arithmetic));
}

void writePassArithmeticJson(gguf::JsonWriter& json, const PassArithmetic& arithmetic)
{
    const gguf::ForwardOptions options = forwardOptionsOf(arithmetic);
    const gguf::KvCacheSettings cache = options.effectiveKvCache();
    json.key("activations");
    json.value(gguf::activationArithmeticName(arithmetic.activations));
    json.key("attention");
    json.value(gguf::attentionArithmeticName(options));
    json.key("kv_type_k");
    json.value(gguf::typeName(cache.keyType));
    json.key("kv_type_v");
    json.value(gguf::typeName(cache.valueType));
    json.key("flash_attn");
    json.value(cache.flashAttentionOn());
}
