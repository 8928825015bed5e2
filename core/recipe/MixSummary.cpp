#include "core/recipe/MixSummary.h"

#include "core/recipe/RecipeGrid.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace gguf {

namespace {

double typeBitsPerWeight(std::uint32_t typeId)
{
    const TypeTraits* traits = findType(typeId);
    return traits && traits->blockSize ? 8.0 * double(traits->blockBytes) / double(traits->blockSize) : 0.0;
}

struct TypeUse {
    std::uint32_t type = 0;
    std::uint64_t elements = 0;
    std::vector<std::string> roles;              // in the order met
    std::map<std::string, std::set<int>> layers;  // per role
};

// "output", "attn_v in 1 of 2 layers", or "attn_v" when it is that type in every layer it is in.
std::string roleText(const std::string& role, const std::set<int>& layers, const std::map<std::string, std::set<int>>& allLayers)
{
    const std::set<int>& all = allLayers.at(role);
    if (layers.size() == all.size() || (layers.size() == 1 && *layers.begin() == RecipeGrid::kNoLayer))
        return role;
    return role + " in " + std::to_string(layers.size()) + " of " + std::to_string(all.size()) + " layers";
}

std::string mixLabel(const Model& model)
{
    std::vector<TypeUse> uses;
    std::map<std::string, std::set<int>> roleLayers;
    std::set<std::uint32_t> keptTypes;
    std::uint64_t quantizedElements = 0;
    for (const TensorInfo& tensor : model.tensors()) {
        if (!llamaQuantizeAllows(tensor.name, tensor.nDims)) {
            keptTypes.insert(tensor.typeId);
            continue;
        }
        int layer = RecipeGrid::kNoLayer;
        const std::string role = tensorRole(tensor.name, layer);
        roleLayers[role].insert(layer);
        auto use = std::find_if(uses.begin(), uses.end(), [&](const TypeUse& u) { return u.type == tensor.typeId; });
        if (use == uses.end())
            use = uses.insert(uses.end(), TypeUse{tensor.typeId, 0, {}, {}});
        use->elements += tensor.elementCount();
        quantizedElements += tensor.elementCount();
        if (!use->layers.count(role))
            use->roles.push_back(role);
        use->layers[role].insert(layer);
    }
    std::string label;
    std::stable_sort(uses.begin(), uses.end(), [](const TypeUse& a, const TypeUse& b) { return a.elements > b.elements; });
    if (uses.size() == 1) {
        label = typeName(uses[0].type) + " throughout";
    } else if (!uses.empty()) {
        char share[32];
        std::snprintf(share, sizeof share, "%.0f%%", 100.0 * double(uses[0].elements) / double(std::max<std::uint64_t>(quantizedElements, 1)));
        label = "mostly " + typeName(uses[0].type) + " (" + share + " of the weights)";
        for (std::size_t i = 1; i < uses.size(); ++i) {
            label += "; " + typeName(uses[i].type) + " for ";
            for (std::size_t r = 0; r < uses[i].roles.size(); ++r)
                label += (r ? ", " : "") + roleText(uses[i].roles[r], uses[i].layers.at(uses[i].roles[r]), roleLayers);
        }
    }
    if (!keptTypes.empty()) {
        std::string kept;
        for (const std::uint32_t type : keptTypes)
            kept += (kept.empty() ? "" : "/") + typeName(type);
        label += (label.empty() ? "" : "; ") + std::string("norms and other unquantized tensors ") + kept;
    }
    return label;
}

}  // namespace

MixSummary summarizeMix(const Model& model, const RecipeAudit& audit)
{
    MixSummary summary;
    summary.nominalType = audit.labelPreset ? typeIdValue(audit.labelPreset->defaultType) : audit.dominantType;
    summary.nominalBitsPerWeight = typeBitsPerWeight(summary.nominalType);
    std::uint64_t bytes = 0, elements = 0, quantizedBytes = 0, quantizedElements = 0;
    for (const TensorInfo& tensor : model.tensors()) {
        bytes += tensor.nbytes;
        elements += tensor.elementCount();
        if (llamaQuantizeAllows(tensor.name, tensor.nDims)) {
            quantizedBytes += tensor.nbytes;
            quantizedElements += tensor.elementCount();
        }
    }
    summary.effectiveBitsPerWeight = elements ? 8.0 * double(bytes) / double(elements) : 0.0;
    summary.quantizedBitsPerWeight = quantizedElements ? 8.0 * double(quantizedBytes) / double(quantizedElements) : 0.0;
    if (audit.expected) {
        summary.fallbacksKnown = true;
        for (const RecipeTensor& entry : audit.expected->tensors)
            if (entry.fellBack)
                summary.fallbacks.push_back({std::string(entry.source->name), entry.source->ne[0], entry.fellBackFrom, entry.typeId,
                                             entry.source->typeId});
    }
    summary.label = mixLabel(model);
    return summary;
}

}  // namespace gguf
