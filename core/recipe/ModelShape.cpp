#include "core/recipe/ModelShape.h"

namespace gguf {

namespace {

// A u32 key, or the first element of a per-layer array of them (llama.cpp's n_head_arr[0]).
std::optional<std::uint64_t> firstUInt(const Model& model, const std::string& key)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry)
        return std::nullopt;
    if (entry->value.isArray())
        return entry->value.arrayLength() > 0 ? entry->value.element(0).toUInt() : std::nullopt;
    return entry->value.toUInt();
}

std::uint32_t clampedU32(std::optional<std::uint64_t> value, std::uint32_t fallback)
{
    if (!value)
        return fallback;
    return *value > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(*value);
}

}  // namespace

ModelShape readModelShape(const Model& model)
{
    ModelShape shape;
    shape.architecture = model.metadataString("general.architecture");
    const std::string& arch = shape.architecture;
    shape.layerCount = clampedU32(firstUInt(model, arch + ".block_count"), 0);
    shape.headCount = clampedU32(firstUInt(model, arch + ".attention.head_count"), 0);
    shape.headCountKv = clampedU32(firstUInt(model, arch + ".attention.head_count_kv"), shape.headCount);
    shape.expertCount = clampedU32(firstUInt(model, arch + ".expert_count"), 0);
    // llama-model.cpp names an 80-layer llama with fewer KV heads than heads LLM_TYPE_70B, the
    // only model type the quantization rules single out.
    shape.is70B = arch == "llama" && shape.layerCount == 80 && shape.headCount != shape.headCountKv;
    return shape;
}

}  // namespace gguf
