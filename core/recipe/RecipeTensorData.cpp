#include "core/recipe/RecipeTensorData.h"

#include "core/base/TaskExecutor.h"
#include "core/gguf/Dequantize.h"
#include "core/quantize/Quantize.h"

#include <algorithm>

namespace gguf {

namespace {

std::uint64_t rowBytesOf(const TypeTraits& type, std::int64_t rowLength)
{
    return static_cast<std::uint64_t>(rowLength) / type.blockSize * type.blockBytes;
}

struct Chunk {
    std::uint64_t firstRow = 0;
    std::uint64_t rows = 0;
    std::size_t expert = 0;
    std::vector<float> values;
    std::vector<std::uint8_t> packed;
    Status status = Ok{};
};

// One tensor re-encoded: batches of row chunks (one per thread) quantized in parallel, written
// in order, so the bytes do not depend on the thread count.
Status writeConverted(const TensorInfo& tensor, const TypeTraits& target, ByteSink& out, const RecipeConversionOptions& options,
                      TaskExecutor* executor, ConversionProgress& progress)
{
    const std::int64_t rowLength = std::max<std::int64_t>(tensor.ne[0], 1);
    const std::uint64_t rowsPerExpert = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[1], 1));
    const std::uint64_t totalRows = tensor.rowCount();
    const std::uint64_t chunkRows = std::max<std::uint64_t>(1, options.chunkElements / static_cast<std::uint64_t>(rowLength));
    const std::uint64_t targetRowBytes = rowBytesOf(target, rowLength);

    std::vector<Chunk> chunks(executorThreads(executor));
    std::vector<std::vector<float>> importance(chunks.size());
    for (std::uint64_t row = 0; row < totalRows;) {
        std::size_t used = 0;
        for (; used < chunks.size() && row < totalRows; ++used) {
            Chunk& chunk = chunks[used];
            chunk.firstRow = row;
            chunk.expert = static_cast<std::size_t>(row / rowsPerExpert);
            const std::uint64_t expertEnd = (row / rowsPerExpert + 1) * rowsPerExpert;
            chunk.rows = std::min({chunkRows, totalRows - row, expertEnd - row});
            row += chunk.rows;
        }
        runTasks(executor, used, [&](std::size_t i) {
            Chunk& chunk = chunks[i];
            chunk.values.resize(static_cast<std::size_t>(chunk.rows * static_cast<std::uint64_t>(rowLength)));
            chunk.packed.resize(static_cast<std::size_t>(chunk.rows * targetRowBytes));
            chunk.status = dequantizeRows(tensor, chunk.firstRow, chunk.firstRow + chunk.rows, chunk.values, WeightValues::Stored);
            if (!chunk.status)
                return;
            std::span<const float> weights;
            if (options.importance) {
                importance[i] = options.importance(tensor.name, chunk.expert);
                if (!importance[i].empty() && importance[i].size() != static_cast<std::size_t>(rowLength)) {
                    chunk.status = Error{"the importance matrix has " + std::to_string(importance[i].size()) + " weights for "
                                             + std::string(tensor.name) + ", whose rows have " + std::to_string(rowLength),
                                         Error::kNoOffset, {}};
                    return;
                }
                weights = importance[i];
            }
            chunk.status = quantizeRows(target.id, chunk.values, rowLength, weights, chunk.packed);
        });
        for (std::size_t i = 0; i < used; ++i) {
            if (!chunks[i].status)
                return chunks[i].status;
            if (Status s = out.write(chunks[i].packed.data(), chunks[i].packed.size()); !s)
                return s;
            if (Status s = progress.advance(chunks[i].rows * static_cast<std::uint64_t>(rowLength)); !s)
                return s;
        }
    }
    return Ok{};
}

// The stored bytes, unchanged but for the byte order, 1 MiB per write.
Status writeCopied(const TensorInfo& tensor, ByteSink& out, ConversionProgress& progress)
{
    return writeStoredBlocks(tensor, out, (std::uint64_t{1} << 20) / tensor.traits->blockBytes, progress);
}

}  // namespace

Status checkRecipeTensor(const Model& input, const RecipeTensor& entry, const RecipeConversionOptions& options)
{
    const TensorInfo& tensor = *entry.source;
    if (!tensor.traits)
        return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId) + ", whose size is unknown; it cannot be written",
                     tensor.infoOffset, input.shards()[tensor.shard]->path()};
    if (!entry.converted)
        return Ok{};
    if (!tensor.traits->dequantize)
        return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId) + ", which cannot be dequantized",
                     tensor.infoOffset, input.shards()[tensor.shard]->path()};
    if (!findType(entry.typeId))
        return conversionError("tensor '" + std::string(tensor.name) + "': unknown target type " + typeName(entry.typeId));
    if (!canQuantize(entry.typeId))
        return conversionError("tensor '" + std::string(tensor.name) + "' would be " + typeName(entry.typeId)
                               + ", which this build cannot quantize yet");
    if (entry.requiresImatrix && !options.importance)
        return conversionError(typeName(entry.typeId) + " for '" + std::string(tensor.name) + "' needs an importance matrix");
    return Ok{};
}

Status writeRecipeTensor(const RecipeTensor& entry, ByteSink& out, const RecipeConversionOptions& options,
                         ConversionProgress& progress)
{
    const TensorInfo& tensor = *entry.source;
    if (!entry.converted)
        return writeCopied(tensor, out, progress);
    const TypeTraits* target = findType(entry.typeId);
    if (!target)
        return conversionError("tensor '" + std::string(tensor.name) + "': unknown target type " + typeName(entry.typeId));
    return writeConverted(tensor, *target, out, options, options.executor, progress);
}

}  // namespace gguf
