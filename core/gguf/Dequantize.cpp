#include "core/gguf/Dequantize.h"

#include "core/gguf/CompanionScales.h"
#include "core/gguf/TensorBytesRead.h"
#include "core/gguf/ParallelDequantize.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace gguf {

namespace {

// Big-endian blocks are copied into a small buffer and swapped there: the mapping is read-only
// and stays untouched.
void dequantizeSwappedBlocks(const TypeTraits& traits, const std::uint8_t* src, float* dst, std::uint64_t blockCount)
{
    std::array<std::uint8_t, 16384> scratch;
    const std::uint64_t perChunk = scratch.size() / traits.blockBytes;
    while (blockCount > 0) {
        const std::uint64_t blocks = std::min(blockCount, perChunk);
        std::memcpy(scratch.data(), src, blocks * traits.blockBytes);
        for (std::uint64_t b = 0; b < blocks; ++b)
            traits.swapBlock(scratch.data() + b * traits.blockBytes);
        traits.dequantize(scratch.data(), dst, blocks);
        src += blocks * traits.blockBytes;
        dst += blocks * traits.blockSize;
        blockCount -= blocks;
    }
}

// The stored values of elements [begin, end), without the companion scale.
Status dequantizeStored(const TensorInfo& tensor, std::uint64_t begin, std::uint64_t end, std::span<float> out)
{
    const std::string what = "tensor '" + std::string(tensor.name) + "'";
    if (!tensor.traits || !tensor.traits->dequantize)
        return Error{what + " has " + typeName(tensor.typeId) + ", which this build cannot dequantize", tensor.infoOffset, {}};
    const TypeTraits& traits = *tensor.traits;
    if (begin > end || end > tensor.elementCount() || begin % traits.blockSize != 0 || end % traits.blockSize != 0)
        return Error{what + ": elements " + std::to_string(begin) + " to " + std::to_string(end)
                     + " are not a block-aligned range inside the tensor", Error::kNoOffset, {}};
    if (out.size() != end - begin)
        return Error{what + ": output buffer holds " + std::to_string(out.size()) + " floats, expected "
                     + std::to_string(end - begin), Error::kNoOffset, {}};
    if (out.empty())
        return Ok{};

    const std::uint8_t* src = tensor.data + begin / traits.blockSize * traits.blockBytes;
    const std::uint64_t blockCount = (end - begin) / traits.blockSize;
    return readTensorBytes(tensor, src, blockCount * traits.blockBytes, [&] {
        if (tensor.bigEndian && traits.swapBlock)
            dequantizeSwappedBlocks(traits, src, out.data(), blockCount);
        else
            traits.dequantize(src, out.data(), static_cast<std::size_t>(blockCount));
    });
}

}  // namespace

Status dequantizeRows(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::span<float> out, WeightValues values)
{
    if (rowBegin > rowEnd || rowEnd > tensor.rowCount())
        return Error{"tensor '" + std::string(tensor.name) + "': rows " + std::to_string(rowBegin) + " to " + std::to_string(rowEnd)
                     + " are outside its " + std::to_string(tensor.rowCount()) + " rows", Error::kNoOffset, {}};
    const auto rowLength = static_cast<std::uint64_t>(tensor.ne[0]);
    return dequantizeElements(tensor, rowBegin * rowLength, rowEnd * rowLength, out, values);
}

Status dequantizeElements(const TensorInfo& tensor, std::uint64_t begin, std::uint64_t end, std::span<float> out, WeightValues values)
{
    if (Status stored = dequantizeStored(tensor, begin, end, out); !stored || !tensor.outputScale || values == WeightValues::Stored)
        return stored;
    // Each expert matrix (ne[0] * ne[1] elements) of a 3-D weight has its own scale.
    const std::uint64_t matrix = static_cast<std::uint64_t>(tensor.ne[0]) * static_cast<std::uint64_t>(tensor.ne[1]);
    for (std::uint64_t first = begin; first < end;) {
        const std::uint64_t expert = tensor.ne[2] > 1 ? first / matrix : 0;
        const std::uint64_t last = tensor.ne[2] > 1 ? std::min(end, (expert + 1) * matrix) : end;
        const Result<float> scale = outputScaleOf(tensor, expert);
        if (!scale)
            return scale.error();
        for (std::uint64_t i = first; i < last; ++i)
            out[i - begin] = out[i - begin] * *scale;
        first = last;
    }
    return Ok{};
}

Status forEachChunk(const TensorSlice& slice, std::uint64_t maxChunkElements, const ChunkConsumer& consume, TaskExecutor* executor)
{
    const TensorInfo& tensor = *slice.tensor;
    const std::uint64_t total = slice.elementCount();
    if (total == 0)
        return Ok{};
    if (!tensor.traits || !tensor.traits->dequantize)
        return dequantizeElements(tensor, 0, 0, {});  // the error names the type
    // Chunks are whole blocks, so even a single enormous row streams in bounded memory.
    const std::uint64_t blockSize = tensor.traits->blockSize;
    const std::uint64_t chunk = std::max(blockSize, maxChunkElements / blockSize * blockSize);
    std::vector<float> buffer(static_cast<std::size_t>(std::min(chunk, total)));
    const std::uint64_t base = slice.firstRow * slice.rowLength();
    for (std::uint64_t done = 0; done < total; done += chunk) {
        const std::uint64_t count = std::min(chunk, total - done);
        const std::span<float> values(buffer.data(), static_cast<std::size_t>(count));
        const Status s = executorThreads(executor) > 1
                             ? dequantizeElementsParallel(tensor, base + done, base + done + count, values, executor)
                             : dequantizeElements(tensor, base + done, base + done + count, values);
        if (!s)
            return s;
        if (!consume(values, done))
            return Ok{};
    }
    return Ok{};
}

}  // namespace gguf
