#include "core/analysis/LayerBreakdown.h"

#include <algorithm>
#include <map>

namespace gguf {

std::optional<std::uint32_t> layerIndexFromName(std::string_view tensorName)
{
    constexpr std::string_view prefix = "blk.";
    if (tensorName.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    std::uint64_t index = 0;
    std::size_t position = prefix.size();
    for (; position < tensorName.size() && tensorName[position] >= '0' && tensorName[position] <= '9'; ++position) {
        index = index * 10 + static_cast<std::uint64_t>(tensorName[position] - '0');
        if (index > UINT32_MAX)
            return std::nullopt;
    }
    const bool hasDigits = position > prefix.size();
    if (!hasDigits || position >= tensorName.size() || tensorName[position] != '.')
        return std::nullopt;
    return static_cast<std::uint32_t>(index);
}

std::uint64_t LayerBytes::bytesOfType(std::uint32_t typeId) const
{
    const auto it = std::find_if(types.begin(), types.end(), [typeId](const LayerTypeBytes& t) { return t.typeId == typeId; });
    return it == types.end() ? 0 : it->byteCount;
}

namespace {
void addTensor(LayerBytes& layer, const TensorInfo& tensor)
{
    auto it = std::lower_bound(layer.types.begin(), layer.types.end(), tensor.typeId,
                               [](const LayerTypeBytes& t, std::uint32_t id) { return t.typeId < id; });
    if (it == layer.types.end() || it->typeId != tensor.typeId)
        it = layer.types.insert(it, LayerTypeBytes{tensor.typeId, 0, 0});
    ++it->tensorCount;
    it->byteCount += tensor.nbytes;
    ++layer.tensorCount;
    layer.byteCount += tensor.nbytes;
}
}  // namespace

LayerBreakdown computeLayerBreakdown(const std::vector<TensorInfo>& tensors)
{
    std::map<std::uint32_t, LayerBytes> byLayer;
    LayerBytes other;
    std::vector<std::uint32_t> typeIds;
    for (const TensorInfo& tensor : tensors) {
        if (const auto layer = layerIndexFromName(tensor.name)) {
            LayerBytes& entry = byLayer[*layer];
            entry.layer = layer;
            addTensor(entry, tensor);
        } else {
            addTensor(other, tensor);
        }
        const auto it = std::lower_bound(typeIds.begin(), typeIds.end(), tensor.typeId);
        if (it == typeIds.end() || *it != tensor.typeId)
            typeIds.insert(it, tensor.typeId);
    }

    LayerBreakdown breakdown;
    breakdown.typeIds = std::move(typeIds);
    breakdown.layers.reserve(byLayer.size() + 1);
    for (auto& [index, layer] : byLayer)
        breakdown.layers.push_back(std::move(layer));
    if (other.tensorCount > 0)
        breakdown.layers.push_back(std::move(other));
    return breakdown;
}

}  // namespace gguf
