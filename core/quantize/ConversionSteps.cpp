#include "core/quantize/ConversionSteps.h"

#include "core/gguf/RemoteRegion.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <vector>

namespace gguf {

Status ConversionProgress::advance(std::uint64_t elements)
{
    m_done += elements;
    if (m_report)
        m_report(m_done, m_total);
    if (m_cancel && m_cancel->load())
        return conversionError("conversion cancelled");
    return Ok{};
}

Status writeStoredBlocks(const TensorInfo& tensor, ByteSink& out, std::uint64_t blocksPerChunk, ConversionProgress& progress)
{
    const TypeTraits& traits = *tensor.traits;
    const bool swap = tensor.bigEndian && traits.swapBlock;
    const std::uint64_t totalBlocks = tensor.nbytes / traits.blockBytes;
    blocksPerChunk = std::max<std::uint64_t>(1, blocksPerChunk);
    std::vector<std::uint8_t> buffer;
    for (std::uint64_t block = 0; block < totalBlocks; block += blocksPerChunk) {
        const std::uint64_t blocks = std::min(blocksPerChunk, totalBlocks - block);
        const std::uint8_t* bytes = tensor.data + block * traits.blockBytes;
        const auto size = static_cast<std::size_t>(blocks * traits.blockBytes);
        if (Status s = ensureMappedBytes(bytes, size); !s)
            return s;
        if (swap) {
            buffer.assign(bytes, bytes + size);
            for (std::uint64_t b = 0; b < blocks; ++b)
                traits.swapBlock(buffer.data() + b * traits.blockBytes);
            bytes = buffer.data();
        }
        if (Status s = out.write(bytes, size); !s)
            return s;
        if (Status s = progress.advance(blocks * traits.blockSize); !s)
            return s;
    }
    return Ok{};
}

}  // namespace gguf
