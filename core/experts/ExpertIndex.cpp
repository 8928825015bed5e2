#include "core/experts/ExpertIndex.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace gguf {

namespace {
constexpr std::string_view kLayerPrefix = "blk.";

struct ProjectionSuffix {
    std::string_view suffix;
    ExpertProjection projection;
};
// Longest first, so "ffn_gate_up_exps" is not taken for "ffn_up_exps".
constexpr ProjectionSuffix kSuffixes[] = {
    {".ffn_gate_up_exps.weight", ExpertProjection::GateUp},
    {".ffn_gate_exps.weight", ExpertProjection::Gate},
    {".ffn_up_exps.weight", ExpertProjection::Up},
    {".ffn_down_exps.weight", ExpertProjection::Down},
};

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
}  // namespace

const char* projectionName(ExpertProjection projection)
{
    switch (projection) {
    case ExpertProjection::Gate: return "gate";
    case ExpertProjection::Up: return "up";
    case ExpertProjection::Down: return "down";
    case ExpertProjection::GateUp: return "gate_up";
    }
    return "?";
}

std::optional<std::uint32_t> layerOfTensorName(std::string_view name)
{
    if (name.substr(0, kLayerPrefix.size()) != kLayerPrefix)
        return std::nullopt;
    const char* begin = name.data() + kLayerPrefix.size();
    const char* end = name.data() + name.size();
    std::uint32_t layer = 0;
    const auto [next, error] = std::from_chars(begin, end, layer);
    if (error != std::errc() || next == begin || next == end || *next != '.')
        return std::nullopt;
    return layer;
}

std::optional<std::uint32_t> expertAxisOf(const TensorInfo& tensor, std::uint64_t expertCount)
{
    if (tensor.nDims == 0 || tensor.nDims > 2 || expertCount == 0)
        return std::nullopt;
    const std::uint32_t last = tensor.nDims - 1;
    if (static_cast<std::uint64_t>(tensor.ne[last]) != expertCount)
        return std::nullopt;
    return last;
}

std::string expertExtraRole(std::string_view name)
{
    struct Role {
        std::string_view suffix;
        const char* role;
    };
    static constexpr Role kRoles[] = {
        {".exp_probs_b.bias", "selection bias (added to the router's scores for the choice only)"},
        {".ffn_gate_inp.bias", "router bias"},
        {".ffn_gate_inp.scale", "router input scale"},
        {".ffn_gate_up_exps.bias", "bias of each expert's fused gate/up projection"},
        {".ffn_gate_exps.bias", "bias of each expert's gate projection"},
        {".ffn_up_exps.bias", "bias of each expert's up projection"},
        {".ffn_down_exps.bias", "bias of each expert's down projection"},
        {".ffn_down_exps.scale", "output scale of each expert"},
        {".ffn_gate_inp_shexp.weight", "shared expert gate (sigmoid weight of the shared output)"},
        {".ffn_gate_shexp.weight", "shared expert gate projection"},
        {".ffn_up_shexp.weight", "shared expert up projection"},
        {".ffn_down_shexp.weight", "shared expert down projection"},
        {".ffn_gate_shexp.bias", "shared expert gate bias"},
        {".ffn_up_shexp.bias", "shared expert up bias"},
        {".ffn_down_shexp.bias", "shared expert down bias"},
    };
    for (const Role& entry : kRoles)
        if (endsWith(name, entry.suffix))
            return entry.role;
    if (endsWith(name, "_exps.scale"))
        return "scale of each expert";
    if (endsWith(name, "_exps.bias"))
        return "bias of each expert";
    return endsWith(name, "_shexp.weight") || endsWith(name, "_shexp.bias") ? "shared expert tensor" : "";
}

const TensorInfo* ExpertLayer::find(ExpertProjection projection) const
{
    for (const ExpertTensor& expert : experts)
        if (expert.projection == projection)
            return expert.tensor;
    return nullptr;
}

const ExpertLayer* ExpertIndex::findLayer(std::uint32_t layer) const
{
    for (const ExpertLayer& entry : m_layers)
        if (entry.layer == layer)
            return &entry;
    return nullptr;
}

ExpertIndex ExpertIndex::build(const Model& model)
{
    ExpertIndex index;
    const std::string arch = model.metadataString("general.architecture");
    const auto declared = model.metadataUInt(arch + ".expert_count");
    index.m_expertUsedCount = model.metadataUInt(arch + ".expert_used_count");

    std::map<std::uint32_t, ExpertLayer> layers;
    for (const TensorInfo& tensor : model.tensors()) {
        const auto layer = layerOfTensorName(tensor.name);
        if (!layer)
            continue;
        if (endsWith(tensor.name, ".ffn_gate_inp.weight")) {
            layers[*layer].router = &tensor;
            continue;
        }
        if (endsWith(tensor.name, "_shexp.weight") || endsWith(tensor.name, "_shexp.bias")) {
            layers[*layer].shared.push_back(&tensor);
            continue;
        }
        if (endsWith(tensor.name, "_exps.bias") || endsWith(tensor.name, "_exps.scale") || endsWith(tensor.name, ".exp_probs_b.bias")
            || endsWith(tensor.name, ".ffn_gate_inp.bias") || endsWith(tensor.name, ".ffn_gate_inp.scale")) {
            layers[*layer].biases.push_back(&tensor);
            continue;
        }
        for (const ProjectionSuffix& entry : kSuffixes) {
            if (!endsWith(tensor.name, entry.suffix))
                continue;
            // An expert tensor is 3-D with the expert index in ne[2] (GGUF-NOTES: the slowest axis).
            if (tensor.nDims != 3 || tensor.ne[3] != 1) {
                index.m_inconsistencies.push_back(std::string(tensor.name) + " is named like an expert tensor but is not 3-D");
                break;
            }
            if (declared && static_cast<std::uint64_t>(tensor.ne[2]) != *declared)
                index.m_inconsistencies.push_back(std::string(tensor.name) + " holds " + std::to_string(tensor.ne[2])
                                                  + " experts but expert_count says " + std::to_string(*declared));
            layers[*layer].experts.push_back({entry.projection, &tensor});
            index.m_expertCount = std::max<std::uint64_t>(index.m_expertCount, static_cast<std::uint64_t>(tensor.ne[2]));
            break;
        }
    }
    for (auto& [number, layer] : layers) {
        if (layer.experts.empty())
            continue;  // a router or shared expert alone is not a MoE layer
        layer.layer = number;
        std::sort(layer.experts.begin(), layer.experts.end(),
                  [](const ExpertTensor& a, const ExpertTensor& b) { return a.projection < b.projection; });
        index.m_layers.push_back(std::move(layer));
    }
    if (declared && !index.m_layers.empty())
        index.m_expertCount = *declared;
    return index;
}

}  // namespace gguf
