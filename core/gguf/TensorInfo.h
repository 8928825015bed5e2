#pragma once
// One tensor as the file describes it, after validation.

#include "core/types/GgmlType.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace gguf {

struct TensorInfo {
    // Eight-byte fields first, then the smaller ones: 120 bytes, where padding between them took
    // 136 (a 3,000-tensor header keeps 3,000 of these).
    std::string_view name;                       // points into the mapped file
    std::array<std::int64_t, 4> ne{1, 1, 1, 1};  // ne[0] fastest; dims past nDims are 1
    const TypeTraits* traits = nullptr;          // nullptr for retired and unknown type ids
    std::uint64_t offset = 0;                    // relative to the data section
    std::uint64_t fileOffset = 0;                // absolute, in the file holding it
    // Exact byte size for known types. For unknown types the size cannot be computed, so this is
    // the room up to the next tensor or the end of the file.
    std::uint64_t nbytes = 0;
    std::uint64_t infoOffset = 0;  // where the tensor's info record starts, for error messages
    const std::uint8_t* data = nullptr;
    // The weight's companion "<name>.scale" tensor in the same model, which llama.cpp multiplies
    // its products by (CompanionScales.h): dequantized values are then the weight's effective
    // values, stored values times the scale. Null when it has none.
    const TensorInfo* outputScale = nullptr;
    std::uint32_t nDims = 0;  // as stored: 0 (a scalar) to 4
    std::uint32_t typeId = 0;
    std::uint32_t shard = 0;  // index of the file holding it in a split model
    bool bigEndian = false;

    std::uint64_t elementCount() const
    {
        return static_cast<std::uint64_t>(ne[0]) * static_cast<std::uint64_t>(ne[1])
             * static_cast<std::uint64_t>(ne[2]) * static_cast<std::uint64_t>(ne[3]);
    }
    // Rows of ne[0] elements over all higher dimensions.
    std::uint64_t rowCount() const
    {
        return static_cast<std::uint64_t>(ne[1]) * static_cast<std::uint64_t>(ne[2]) * static_cast<std::uint64_t>(ne[3]);
    }
    std::uint64_t rowBytes() const
    {
        return traits ? static_cast<std::uint64_t>(ne[0]) / traits->blockSize * traits->blockBytes : 0;
    }
    bool sizeKnown() const { return traits != nullptr; }
};
static_assert(sizeof(void*) != 8 || sizeof(TensorInfo) == 120, "TensorInfo grew: keep its fields free of padding");

}  // namespace gguf
