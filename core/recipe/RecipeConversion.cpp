#include "core/recipe/RecipeConversion.h"

#include "core/base/TaskExecutor.h"
#include "core/kernels/Dequantize.h"
#include "core/quantize/ConversionSteps.h"
#include "core/quantize/Quantize.h"
#include "core/write/ByteSink.h"
#include "core/write/GgufWriter.h"

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
            chunk.status = dequantizeRows(tensor, chunk.firstRow, chunk.firstRow + chunk.rows, chunk.values);
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

bool isMovedKey(std::string_view key)
{
    return key.substr(0, 6) == "split." || key == "general.quantization_version" || key == "general.file_type"
        || key.substr(0, 17) == "quantize.imatrix.";
}

// llama-quantize's metadata: the input's, split keys dropped, the version and file type set
// last, then the imatrix provenance.
Status writeRecipeMetadata(GgufWriter& writer, const Model& input, std::uint32_t fileType, const std::optional<ImatrixProvenance>& imatrix)
{
    if (Status s = writer.copyMetadata(input.primary(), [](std::string_view key) { return !isMovedKey(key); }); !s)
        return s;
    writer.setValue("general.quantization_version", EncodedValue::u32(2));
    writer.setValue("general.file_type", EncodedValue::u32(fileType));
    if (imatrix) {
        writer.setValue("quantize.imatrix.file", EncodedValue::string(imatrix->file));
        if (!imatrix->dataset.empty())
            writer.setValue("quantize.imatrix.dataset", EncodedValue::string(imatrix->dataset));
        writer.setValue("quantize.imatrix.entries_count", EncodedValue::u32(imatrix->entries));
        if (imatrix->chunks > 0)
            writer.setValue("quantize.imatrix.chunks_count", EncodedValue::u32(imatrix->chunks));
    }
    return Ok{};
}

TensorSpec specOf(const TensorInfo& tensor, std::uint32_t typeId)
{
    TensorSpec spec{std::string(tensor.name), typeId, {}};
    for (std::uint32_t d = 0; d < std::max<std::uint32_t>(tensor.nDims, 1); ++d)
        spec.ne.push_back(tensor.ne[d]);  // a stored scalar (0 dims) is written as [1]
    return spec;
}

}  // namespace

Result<RecipeFileLayout> recipeFileLayout(const Model& input, const std::optional<ImatrixProvenance>& imatrix)
{
    GgufWriter writer;
    if (Status s = writeRecipeMetadata(writer, input, 0, imatrix); !s)
        return s.error();
    std::uint64_t data = 0;
    auto align = writer.alignment();
    if (!align)
        return align.error();
    RecipeFileLayout layout;
    layout.alignment = *align;
    for (const TensorInfo& tensor : input.tensors()) {
        if (!tensor.traits)
            return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId) + ", whose size is unknown",
                         tensor.infoOffset, input.shards()[tensor.shard]->path()};
        if (Status s = writer.addTensor(specOf(tensor, tensor.typeId), [](ByteSink&) -> Status { return Ok{}; }); !s)
            return s.error();
        data += layout.padded(tensor.nbytes);
    }
    auto size = writer.fileSize();
    if (!size)
        return size.error();
    layout.headerBytes = *size - data;
    return layout;
}

Result<RecipeConversionReport> convertWithRecipe(const Model& input, const Recipe& recipe, const std::string& outputPath,
                                                 const RecipeConversionOptions& options)
{
    for (const auto& shard : input.shards())
        if (isSameFile(outputPath, shard->path()))
            return Error{"output is the input file " + shard->path() + "; refusing to overwrite it", Error::kNoOffset, {}};
    if (!recipe.preset)
        return conversionError("the recipe has no preset");
    if (!recipe.refusal.empty() && !options.importance)
        return conversionError(recipe.refusal);

    RecipeConversionReport report;
    for (const RecipeTensor& entry : recipe.tensors) {
        const TensorInfo& tensor = *entry.source;
        if (&tensor < input.tensors().data() || &tensor >= input.tensors().data() + input.tensors().size())
            return conversionError("the recipe was computed for another model");
        if (!tensor.traits)
            return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId) + ", whose size is unknown; it cannot be written",
                         tensor.infoOffset, input.shards()[tensor.shard]->path()};
        if (!entry.converted) {
            ++report.copiedCount;
            continue;
        }
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
        if (tensor.traits->kind == TypeKind::Quantized)
            report.warnings.push_back(std::string(tensor.name) + " is already " + typeName(tensor.typeId)
                                      + "; requantizing it adds to its error");
        ++report.convertedCount;
    }

    GgufWriter writer;
    if (Status s = writeRecipeMetadata(writer, input, recipe.preset->fileType, options.imatrix); !s)
        return s.error();

    std::uint64_t totalElements = 0;
    for (const RecipeTensor& entry : recipe.tensors)
        totalElements += entry.source->elementCount();
    ConversionProgress progress(options.progress, options.cancel, totalElements);

    for (const RecipeTensor& entry : recipe.tensors) {
        const TensorInfo& tensor = *entry.source;
        TensorSpec spec = specOf(tensor, entry.typeId);
        TensorDataProducer produce;
        if (entry.converted) {
            const TypeTraits* target = findType(entry.typeId);
            produce = [&tensor, target, &options, &progress](ByteSink& out) {
                return writeConverted(tensor, *target, out, options, options.executor, progress);
            };
        } else {
            produce = [&tensor, &progress](ByteSink& out) { return writeCopied(tensor, out, progress); };
        }
        report.tensorBytes += entry.bytes;
        if (Status s = writer.addTensor(std::move(spec), std::move(produce)); !s)
            return s.error();
    }
    if (Status s = writer.writeFile(outputPath, [&input] { return input.checkUnchanged(); }); !s) {
        Error error = s.error();
        if (error.path.empty())
            error.path = outputPath;
        return error;
    }
    return report;
}

}  // namespace gguf
