#include "core/quantize/Quantize.h"

#include "core/blocks/BlockScales.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gguf {

namespace {

// llama-quantize runs ggml_validate_row_data on every chunk it quantizes and stops at a block
// whose float scale is NaN or infinite. Importance weights near FLT_MAX make the weighted
// searches overflow into exactly that (zeros with NaN scales): fail the same way rather than
// hand such a tensor to the writer.
Status checkFiniteScales(const TypeTraits& traits, std::int64_t rowLength, std::size_t rows, std::span<const std::uint8_t> out)
{
    TensorInfo view;
    view.nDims = 2;
    view.ne = {rowLength, static_cast<std::int64_t>(rows), 1, 1};
    view.traits = &traits;
    view.typeId = traits.id;
    view.data = out.data();
    view.nbytes = out.size();
    BlockScales scales;
    if (!extractRowScales(view, 0, rows, scales))
        return Ok{};  // no float scales to check in this type
    const std::size_t perBlock = std::max<std::size_t>(scales.layout.superScales, 1);
    const std::size_t blocksPerRow = static_cast<std::size_t>(rowLength) / traits.blockSize;
    for (std::size_t i = 0; i < scales.superScales.size(); ++i)
        if (!std::isfinite(scales.superScales[i])) {
            const std::size_t block = i / perBlock;
            return Error{"quantizing to " + typeName(traits.id) + " gave a " + (std::isnan(scales.superScales[i]) ? "NaN" : "infinite")
                             + " scale in row " + std::to_string(block / blocksPerRow) + ", block " + std::to_string(block % blocksPerRow)
                             + " (quantized data validation failed): the importance weights are too large",
                         Error::kNoOffset, {}};
        }
    return Ok{};
}

}  // namespace

QuantizeBlocksFn findQuantizer(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    return type ? type->quantize : nullptr;
}

bool canQuantize(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    return type && type->canQuantize();
}

std::vector<const TypeTraits*> quantizableTypes()
{
    std::vector<const TypeTraits*> types;
    for (const TypeTraits* type = typeTableBegin(); type != typeTableEnd(); ++type)
        if (type->canQuantize())
            types.push_back(type);
    return types;
}

std::vector<const TypeTraits*> simulationTargetTypes()
{
    std::vector<const TypeTraits*> types;
    for (const TypeTraits* type : quantizableTypes())
        if (type->kind == TypeKind::Quantized && !requiresImportance(type->id))
            types.push_back(type);
    std::stable_sort(types.begin(), types.end(), [](const TypeTraits* a, const TypeTraits* b) {
        if (a->blockSize != b->blockSize)
            return a->blockSize > b->blockSize;
        return a->bitsPerWeight() < b->bitsPerWeight();
    });
    return types;
}

Status quantizeValues(std::uint32_t typeId, std::span<const float> values, std::span<std::uint8_t> out)
{
    const TypeTraits* traits = findType(typeId);
    if (traits && requiresImportance(typeId))
        return Error{"cannot quantize to " + typeName(typeId) + " without an importance matrix: ggml's " + traits->name
                     + " quantizer needs importance weights (ggml_quantize_requires_imatrix)", Error::kNoOffset, {}};
    const QuantizeBlocksFn quantize = findQuantizer(typeId);
    if (!traits || !quantize)
        return Error{"cannot quantize to " + typeName(typeId) + ": no quantizer for that type", Error::kNoOffset, {}};
    if (values.size() % traits->blockSize != 0)
        return Error{std::to_string(values.size()) + " values are not a whole number of " + traits->name + " blocks of "
                     + std::to_string(traits->blockSize), Error::kNoOffset, {}};
    const std::size_t blocks = values.size() / traits->blockSize;
    if (out.size() != blocks * traits->blockBytes)
        return Error{"quantized output buffer holds " + std::to_string(out.size()) + " bytes, expected "
                     + std::to_string(blocks * traits->blockBytes), Error::kNoOffset, {}};
    quantize(values.data(), out.data(), blocks);
    return Ok{};
}

bool usesImportance(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    return type && type->quantizeWeighted;
}

bool requiresImportance(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    return type && type->requiresImportance();
}

Status quantizeRows(std::uint32_t typeId, std::span<const float> values, std::int64_t rowLength,
                    std::span<const float> importance, std::span<std::uint8_t> out)
{
    const TypeTraits* traits = findType(typeId);
    if (traits && importance.empty() && requiresImportance(typeId))
        return quantizeValues(typeId, values, out);  // the refusal, with its reason
    if (!traits || !canQuantize(typeId))
        return Error{"cannot quantize to " + typeName(typeId) + ": no quantizer for that type", Error::kNoOffset, {}};
    if (rowLength <= 0 || std::uint64_t(rowLength) % traits->blockSize != 0)
        return Error{"row length " + std::to_string(rowLength) + " is not a whole number of " + traits->name + " blocks of "
                     + std::to_string(traits->blockSize), Error::kNoOffset, {}};
    if (values.size() % std::uint64_t(rowLength) != 0)
        return Error{std::to_string(values.size()) + " values are not a whole number of rows of " + std::to_string(rowLength),
                     Error::kNoOffset, {}};
    if (!importance.empty() && importance.size() != std::uint64_t(rowLength))
        return Error{"importance row has " + std::to_string(importance.size()) + " weights for rows of "
                     + std::to_string(rowLength) + " values", Error::kNoOffset, {}};
    const QuantizeRowFn weighted = traits->quantizeWeighted;
    if (importance.empty() || !weighted)
        return quantizeValues(typeId, values, out);

    const std::size_t rows = values.size() / std::size_t(rowLength);
    const std::size_t rowBytes = std::size_t(rowLength) / traits->blockSize * traits->blockBytes;
    if (out.size() != rows * rowBytes)
        return Error{"quantized output buffer holds " + std::to_string(out.size()) + " bytes, expected "
                     + std::to_string(rows * rowBytes), Error::kNoOffset, {}};
    for (std::size_t row = 0; row < rows; ++row)
        weighted(values.data() + row * std::size_t(rowLength), out.data() + row * rowBytes, rowLength, importance.data());
    return checkFiniteScales(*traits, rowLength, rows, out);
}

}  // namespace gguf
