#include "core/gguf/CompanionScales.h"

#include "core/gguf/MetadataFormat.h"
#include "core/gguf/TensorBytesRead.h"
#include "core/kernels/BlockRead.h"

#include <array>
#include <cstring>

namespace gguf {

namespace {

// The matrices of a layer llama-model.cpp's generic pass looks for scales of (blk.N.<role>.weight).
constexpr std::array<std::string_view, 21> kLayerRoles = {
    "attn_q",        "attn_k",         "attn_v",         "attn_output",   "attn_qkv", "attn_gate",  "ffn_gate",
    "ffn_down",      "ffn_up",         "ffn_gate_shexp", "ffn_down_shexp", "ffn_up_shexp", "ffn_gate_exps", "ffn_down_exps",
    "ffn_up_exps",   "ssm_in",         "ssm_out",        "ssm_alpha",     "ssm_beta", "nextn.eh_proj", "nextn.shared_head_head"};

constexpr std::string_view kWeight = ".weight";

// "blk.N.<role>" of "blk.N.<role>.weight" when role is one of kLayerRoles.
bool isScaledLayerWeight(std::string_view name)
{
    if (!name.starts_with("blk.") || !name.ends_with(kWeight))
        return false;
    const std::size_t dot = name.find('.', 4);
    if (dot == std::string_view::npos || dot == 4)
        return false;
    for (std::size_t i = 4; i < dot; ++i)
        if (name[i] < '0' || name[i] > '9')
            return false;
    const std::string_view role = name.substr(dot + 1, name.size() - kWeight.size() - dot - 1);
    for (const std::string_view known : kLayerRoles)
        if (role == known)
            return true;
    return false;
}

}  // namespace

std::string companionName(std::string_view weightName, std::uint32_t weightType, std::string_view suffix)
{
    const bool output = weightName == "output.weight" && weightType == typeIdValue(GgmlTypeId::NVFP4);
    if (!output && !isScaledLayerWeight(weightName))
        return {};
    std::string name(weightName.substr(0, weightName.size() - kWeight.size()));
    name += '.';
    name += suffix;
    return name;
}

void linkOutputScales(std::vector<TensorInfo>& tensors, const std::function<const TensorInfo*(std::string_view)>& find)
{
    for (TensorInfo& tensor : tensors) {
        const std::string name = companionName(tensor.name, tensor.typeId, "scale");
        tensor.outputScale = name.empty() ? nullptr : find(name);
    }
}

namespace {
// A companion must be f32 [1], or [ne[2]] beside a 3-D expert weight.
Status checkShape(const TensorInfo& weight, const TensorInfo& companion)
{
    const std::uint64_t expected = weight.ne[2] > 1 ? static_cast<std::uint64_t>(weight.ne[2]) : 1;
    if (companion.typeId == typeIdValue(GgmlTypeId::F32) && companion.elementCount() == expected
        && companion.ne[0] == static_cast<std::int64_t>(expected))
        return Ok{};
    return Error{"tensor '" + std::string(companion.name) + "' of '" + std::string(weight.name) + "' must be f32 [" + std::to_string(expected)
                     + "], as llama.cpp loads it; it is " + typeName(companion.typeId) + " [" + std::to_string(companion.ne[0]) + ", "
                     + std::to_string(companion.ne[1]) + "]",
                 companion.infoOffset, {}};
}
}  // namespace

Status checkCompanions(const TensorInfo& weight, const std::function<const TensorInfo*(std::string_view)>& find)
{
    for (const std::string_view suffix : {std::string_view("scale"), std::string_view("input_scale")}) {
        const std::string name = companionName(weight.name, weight.typeId, suffix);
        if (const TensorInfo* companion = name.empty() ? nullptr : find(name))
            if (Status shape = checkShape(weight, *companion); !shape)
                return shape;
    }
    return Ok{};
}

Result<float> outputScaleOf(const TensorInfo& weight, std::uint64_t expert)
{
    const TensorInfo* scale = weight.outputScale;
    if (!scale)
        return 1.0f;
    if (Status shape = checkShape(weight, *scale); !shape)
        return shape.error();
    const std::uint64_t expected = weight.ne[2] > 1 ? static_cast<std::uint64_t>(weight.ne[2]) : 1;
    if (expert >= expected)
        return Error{"tensor '" + std::string(weight.name) + "' has no expert " + std::to_string(expert), Error::kNoOffset, {}};
    const std::uint8_t* at = scale->data + expert * 4;
    float value = 0.0f;
    if (Status read = readTensorBytes(*scale, at, 4, [&] {
            const std::uint32_t bits = kernels::loadLe<std::uint32_t>(at);
            std::uint32_t native = bits;
            if (scale->bigEndian)
                native = kernels::byteSwapped(bits);
            std::memcpy(&value, &native, 4);
        });
        !read)
        return read.error();
    return value;
}

std::string companionSummary(const TensorInfo& weight, std::optional<std::uint64_t> expert,
                             const std::function<const TensorInfo*(std::string_view)>& find)
{
    std::string text;
    const auto describe = [&](std::string_view suffix, const char* label, const char* use) {
        const std::string name = companionName(weight.name, weight.typeId, suffix);
        const TensorInfo* companion = name.empty() ? nullptr : find(name);
        if (!companion)
            return;
        if (!text.empty())
            text += "; ";
        text += label;
        if (Status shape = checkShape(weight, *companion); !shape) {
            text += " " + name + ": " + shape.error().message;
            return;
        }
        const std::uint64_t count = static_cast<std::uint64_t>(companion->ne[0]);
        // One value: the tensor's; per expert: the shown expert's, or how many there are.
        if (count == 1 || expert) {
            TensorInfo probe = weight;
            probe.outputScale = companion;
            const Result<float> value = outputScaleOf(probe, count == 1 ? 0 : *expert);
            text += value ? " " + formatFloat(*value, true) : " ?";
        } else {
            text += " per expert";
        }
        text += " (" + name + "): ";
        text += use;
    };
    describe("scale", "values x", "llama.cpp multiplies the products by it, the values shown are the stored ones times it");
    describe("input_scale", "input scale", "loaded by llama.cpp, not applied");
    return text;
}

}  // namespace gguf
