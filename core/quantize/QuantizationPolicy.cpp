#include "core/quantize/QuantizationPolicy.h"

#include "core/quantize/Quantize.h"

#include <utility>

namespace gguf {

namespace {

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Name fragments llama.cpp never quantizes (llama-quant.cpp, tensor_allows_quantization).
constexpr std::string_view kKeptFragments[] = {
    "_norm.weight", "ffn_gate_inp.weight", "altup", "laurel", "per_layer_model_proj", "ssm_conv1d",
    "shortconv.conv.weight", "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight",
    "time_mix_w2.weight", "time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight",
    "attn_rel_b.weight",
};
constexpr std::string_view kKeptNames[] = {"position_embd.weight", "token_types.weight"};

// llama.cpp's fallback when ne[0] is not a multiple of a 256-element super-block
// (llama_tensor_get_type): Q2_K/Q3_K/IQ4_XS/IQ1-IQ3 -> IQ4_NL, TQ1_0/TQ2_0 -> Q4_0, Q4_K -> Q5_0,
// Q5_K -> Q5_1, Q6_K -> Q8_0.
using T = GgmlTypeId;
constexpr std::pair<GgmlTypeId, GgmlTypeId> kFallbacks[] = {
    {T::Q2_K, T::IQ4_NL},    {T::Q3_K, T::IQ4_NL},   {T::Q4_K, T::Q5_0},     {T::Q5_K, T::Q5_1},
    {T::Q6_K, T::Q8_0},      {T::IQ4_XS, T::IQ4_NL}, {T::TQ1_0, T::Q4_0},    {T::TQ2_0, T::Q4_0},
    {T::IQ2_XXS, T::IQ4_NL}, {T::IQ2_XS, T::IQ4_NL}, {T::IQ2_S, T::IQ4_NL},  {T::IQ3_XXS, T::IQ4_NL},
    {T::IQ3_S, T::IQ4_NL},   {T::IQ1_S, T::IQ4_NL},  {T::IQ1_M, T::IQ4_NL}};

bool fits(const TensorInfo& tensor, std::uint32_t typeId)
{
    const TypeTraits* traits = findType(typeId);
    return traits && tensor.ne[0] % traits->blockSize == 0;
}

}  // namespace

bool llamaQuantizesTensor(std::string_view name, std::uint32_t nDims)
{
    if (nDims < 2 || !endsWith(name, "weight"))
        return false;
    for (const std::string_view fragment : kKeptFragments)
        if (contains(name, fragment))
            return false;
    for (const std::string_view kept : kKeptNames)
        if (name == kept)
            return false;
    return true;
}

TensorTarget chooseTensorTarget(const TensorInfo& tensor, std::uint32_t targetType, bool selected)
{
    if (!selected)
        return {false, tensor.typeId, "not selected"};
    if (!llamaQuantizesTensor(tensor.name, tensor.nDims))
        return {false, tensor.typeId, tensor.nDims < 2 ? "1-D, kept as llama.cpp keeps it" : "kept as llama.cpp keeps it"};
    if (tensor.typeId == targetType)
        return {false, tensor.typeId, "already " + typeName(targetType)};
    if (fits(tensor, targetType))
        return {true, targetType, {}};

    std::uint32_t fallback = typeIdValue(T::F16);
    for (const auto& [from, to] : kFallbacks)
        if (typeIdValue(from) == targetType && canQuantize(typeIdValue(to)) && fits(tensor, typeIdValue(to)))
            fallback = typeIdValue(to);
    const std::string why = "row length " + std::to_string(tensor.ne[0]) + " does not fit " + typeName(targetType)
                          + " blocks; " + typeName(fallback) + " instead";
    if (fallback == tensor.typeId)
        return {false, fallback, why};
    return {true, fallback, why};
}

std::optional<std::uint32_t> llamaFileType(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    if (!type || type->llamaFileType < 0)
        return std::nullopt;
    return static_cast<std::uint32_t>(type->llamaFileType);
}

}  // namespace gguf
