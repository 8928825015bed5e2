#include "core/recipe/RecipeConversion.h"

#include "core/imatrix/ImportanceMatrix.h"
#include "core/quantize/ConversionSteps.h"
#include "core/quantize/Quantize.h"
#include "core/write/ByteSink.h"
#include "core/recipe/RecipeTensorData.h"
#include "core/write/GgufWriter.h"

#include <algorithm>

namespace gguf {

namespace {

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
    for (std::uint32_t d = 0; d < ggmlDimensionCount(tensor); ++d)
        spec.ne.push_back(tensor.ne[d]);  // a stored scalar (0 dims) is written as [1]
    return spec;
}

}  // namespace

ImatrixProvenance imatrixProvenanceOf(const ImportanceMatrix& matrix, std::string pathAsGiven)
{
    ImatrixProvenance provenance;
    provenance.file = std::move(pathAsGiven);
    provenance.dataset = matrix.datasets().empty() ? std::string{} : matrix.datasets().front();
    provenance.entries = static_cast<std::uint32_t>(matrix.entries().size());
    provenance.chunks = static_cast<std::uint32_t>(std::clamp<std::int64_t>(matrix.chunkCount(), 0, UINT32_MAX));
    return provenance;
}

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
        if (Status s = checkRecipeTensor(input, entry, options); !s)
            return s.error();
        if (!entry.converted) {
            ++report.copiedCount;
            continue;
        }
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
        TensorDataProducer produce = [&entry, &options, &progress](ByteSink& out) {
            return writeRecipeTensor(entry, out, options, progress);
        };
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
