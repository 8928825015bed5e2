#include "core/blocks/BlockScales.h"

#include "core/gguf/MappedRegionGuard.h"
#include "core/gguf/RemoteRegion.h"

#include <array>
#include <cstring>

namespace gguf {

namespace {

const BlockScaleCodec* codecOf(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    return type && type->scales.extract ? &type->scales : nullptr;
}

BlockScaleLayout layoutOf(const BlockScaleCodec& r)
{
    BlockScaleLayout layout{r.superScales, r.subScales, r.subMins, r.elementsPerSubBlock, r.minRole, {}};
    layout.superScaleNames.assign(r.superNames.begin(), r.superNames.begin() + r.superScales);
    return layout;
}

Error requestError(const TensorInfo& tensor, const std::string& message)
{
    return Error{"tensor '" + std::string(tensor.name) + "': " + message, Error::kNoOffset, {}};
}

// The scale codec of `tensor`'s type, once blocks [firstBlock, firstBlock + blockCount) are known to
// be inside it; checked before anything is sized from blockCount.
Result<const BlockScaleCodec*> codecForRequest(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount)
{
    const BlockScaleCodec* r = tensor.traits ? codecOf(tensor.typeId) : nullptr;
    if (!r)
        return Error{"tensor '" + std::string(tensor.name) + "' (" + typeName(tensor.typeId)
                         + ") has no block scales: only block-quantized types this build knows have them",
                     tensor.infoOffset, {}};
    const std::uint64_t totalBlocks = tensor.elementCount() / tensor.traits->blockSize;
    if (firstBlock > totalBlocks || blockCount > totalBlocks - firstBlock)
        return requestError(tensor, std::to_string(blockCount) + " blocks from block " + std::to_string(firstBlock)
                                        + " are outside its " + std::to_string(totalBlocks) + " blocks");
    // The parser guarantees this for valid files; checked again because the reads trust it.
    if ((firstBlock + blockCount) * tensor.traits->blockBytes > tensor.nbytes || (blockCount > 0 && !tensor.data))
        return requestError(tensor, "its data does not cover block " + std::to_string(firstBlock + blockCount - 1));
    return r;
}

}  // namespace

std::optional<BlockScaleLayout> blockScaleLayout(std::uint32_t typeId)
{
    const BlockScaleCodec* r = codecOf(typeId);
    return r ? std::optional(layoutOf(*r)) : std::nullopt;
}

Status extractBlockScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount,
                          const BlockScaleSpans& out)
{
    const Result<const BlockScaleCodec*> found = codecForRequest(tensor, firstBlock, blockCount);
    if (!found)
        return found.error();
    const BlockScaleCodec& r = **found;
    const std::uint64_t super = blockCount * r.superScales, sub = blockCount * r.subScales,
                        mins = blockCount * r.subMins;
    if (out.superScales.size() != super || out.subScales.size() != sub || out.subMins.size() != mins)
        return requestError(tensor, "scale buffers must hold exactly " + std::to_string(super) + " super scales, "
                                        + std::to_string(sub) + " sub-scales and " + std::to_string(mins) + " mins");

    const bool swap = tensor.bigEndian && tensor.traits->swapBlock;
    const std::size_t blockBytes = tensor.traits->blockBytes;
    std::array<std::uint8_t, kMaxScaleBlockBytes> scratch;
    const std::uint8_t* src = tensor.data + firstBlock * blockBytes;
    if (Status fetched = ensureMappedBytes(src, blockCount * blockBytes); !fetched)
        return requestError(tensor, fetched.error().message);
    // Bytes of a file truncated under us read as zeros; the watch notices.
    const MappedReadWatch watch(src, blockCount * blockBytes);
    for (std::uint64_t i = 0; i < blockCount; ++i, src += blockBytes) {
        const std::uint8_t* block = src;
        if (swap) {
            std::memcpy(scratch.data(), src, blockBytes);
            tensor.traits->swapBlock(scratch.data());
            block = scratch.data();
        }
        r.extract(block, out.superScales.data() + i * r.superScales, out.subScales.data() + i * r.subScales,
                  out.subMins.data() + i * r.subMins);
    }
    if (watch.bytesLost())
        return tensorChangedOnDisk(tensor, watch.lostAddress());
    return Ok{};
}

Status extractBlockScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount,
                          BlockScales& out)
{
    const Result<const BlockScaleCodec*> found = codecForRequest(tensor, firstBlock, blockCount);
    if (!found)
        return found.error();
    const BlockScaleCodec& r = **found;
    out.layout = layoutOf(r);
    out.firstBlock = firstBlock;
    out.blockCount = blockCount;
    out.superScales.resize(blockCount * r.superScales);
    out.subScales.resize(blockCount * r.subScales);
    out.subMins.resize(blockCount * r.subMins);
    const BlockScaleSpans spans{out.superScales, out.subScales, out.subMins};
    return extractBlockScales(tensor, firstBlock, blockCount, spans);
}

Status extractRowScales(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, BlockScales& out)
{
    if (rowBegin > rowEnd || rowEnd > tensor.rowCount())
        return requestError(tensor, "rows " + std::to_string(rowBegin) + " to " + std::to_string(rowEnd)
                                        + " are outside its " + std::to_string(tensor.rowCount()) + " rows");
    if (!tensor.traits)
        return extractBlockScales(tensor, 0, 0, out);  // the error names the type
    const std::uint64_t blocksPerRow = static_cast<std::uint64_t>(tensor.ne[0]) / tensor.traits->blockSize;
    return extractBlockScales(tensor, rowBegin * blocksPerRow, (rowEnd - rowBegin) * blocksPerRow, out);
}

}  // namespace gguf
