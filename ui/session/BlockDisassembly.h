#pragma once
// Everything the block inspector shows about one block, gathered off the GUI thread.

#include "core/blocks/BlockScales.h"
#include "ui/session/SliceRef.h"

#include <QString>
#include <vector>

struct BlockDisassembly {
    std::uint64_t blockIndex = 0;   // in storage order over the whole tensor
    std::uint64_t fileOffset = 0;   // absolute offset of the block's first byte
    std::vector<std::uint8_t> storedBytes;  // as in the file
    std::vector<std::uint8_t> littleEndianBytes;  // after the big-endian swap, when one applies
    std::vector<float> values;
    std::optional<gguf::BlockScales> scales;

    static gguf::Result<BlockDisassembly> read(const SliceRef& slice, std::uint64_t row, std::uint64_t blockInRow);
    QString toHtml(const gguf::TensorInfo& tensor) const;
};
