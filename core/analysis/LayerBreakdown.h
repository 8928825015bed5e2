#pragma once
// Tensor bytes per transformer layer and ggml type: the quant mix of each block, so the layers a
// "_M" quantization keeps at higher precision stand out. Layers come from the tensor names
// (`blk.N.…`); tensors outside a layer (token_embd, output, output_norm, …) are counted apart.

#include "core/gguf/TensorInfo.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gguf {

// 12 for "blk.12.attn_q.weight"; nullopt for names that are not `blk.<decimal>.<rest>` or whose
// number does not fit in 32 bits.
std::optional<std::uint32_t> layerIndexFromName(std::string_view tensorName);

struct LayerTypeBytes {
    std::uint32_t typeId = 0;
    std::uint64_t tensorCount = 0;
    std::uint64_t byteCount = 0;
};

struct LayerBytes {
    std::optional<std::uint32_t> layer;  // nullopt for the tensors outside any layer
    std::vector<LayerTypeBytes> types;   // only the types present, ordered by type id
    std::uint64_t tensorCount = 0;
    std::uint64_t byteCount = 0;

    std::uint64_t bytesOfType(std::uint32_t typeId) const;
};

struct LayerBreakdown {
    // The layers that have tensors, in increasing layer order, then one entry for the tensors
    // outside any layer when there are some. Sparse on purpose: the layer number comes from a
    // name in the file, so "blk.4000000000.x" must not make four billion entries.
    std::vector<LayerBytes> layers;
    std::vector<std::uint32_t> typeIds;  // every type present anywhere, ordered by id

    bool hasOtherTensors() const { return !layers.empty() && !layers.back().layer.has_value(); }
};

LayerBreakdown computeLayerBreakdown(const std::vector<TensorInfo>& tensors);

}  // namespace gguf
