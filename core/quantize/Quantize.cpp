#include "core/quantize/Quantize.h"

#include "core/blocks/BlockScales.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/WeightedQuantizers.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gguf {

namespace {

using T = GgmlTypeId;

struct QuantizerRow {
    GgmlTypeId typeId;
    QuantizeBlocksFn quantize;
};

// In type-id order (tst_type_table checks every row against the type table). A null block
// quantizer marks a type ggml makes only with importance weights (quantizeRows, kWeighted).
constexpr QuantizerRow kQuantizers[] = {
    {T::F32, quantize::quantizeF32},   {T::F16, quantize::quantizeF16},   {T::Q4_0, quantize::quantizeQ4_0},
    {T::Q4_1, quantize::quantizeQ4_1}, {T::Q5_0, quantize::quantizeQ5_0}, {T::Q5_1, quantize::quantizeQ5_1},
    {T::Q8_0, quantize::quantizeQ8_0}, {T::Q2_K, quantize::quantizeQ2_K}, {T::Q3_K, quantize::quantizeQ3_K},
    {T::Q4_K, quantize::quantizeQ4_K}, {T::Q5_K, quantize::quantizeQ5_K}, {T::Q6_K, quantize::quantizeQ6_K},
    {T::Q8_K, quantize::quantizeQ8_K}, {T::IQ2_XXS, nullptr}, {T::IQ2_XS, nullptr},
    {T::IQ3_XXS, quantize::quantizeIQ3_XXS}, {T::IQ1_S, nullptr}, {T::IQ4_NL, quantize::quantizeIQ4_NL}, {T::IQ3_S, quantize::quantizeIQ3_S},
    {T::IQ2_S, quantize::quantizeIQ2_S},   {T::IQ4_XS, quantize::quantizeIQ4_XS}, {T::IQ1_M, quantize::quantizeIQ1_M},
    {T::BF16, quantize::quantizeBF16}, {T::TQ1_0, quantize::quantizeTQ1_0}, {T::TQ2_0, quantize::quantizeTQ2_0},
    {T::MXFP4, quantize::quantizeMXFP4}, {T::NVFP4, quantize::quantizeNVFP4}, {T::Q1_0, quantize::quantizeQ1_0},
    {T::Q2_0, quantize::quantizeQ2_0},
};

// The types whose ggml quantizer reads quant_weights, with their row quantizer.
struct WeightedRow {
    GgmlTypeId typeId;
    quantize::QuantizeRowFn quantize;
};

constexpr WeightedRow kWeighted[] = {
    {T::Q4_0, quantize::quantizeRowQ4_0Weighted}, {T::Q4_1, quantize::quantizeRowQ4_1Weighted},
    {T::Q5_0, quantize::quantizeRowQ5_0Weighted}, {T::Q5_1, quantize::quantizeRowQ5_1Weighted},
    {T::Q2_K, quantize::quantizeRowQ2_KWeighted}, {T::Q3_K, quantize::quantizeRowQ3_KWeighted},
    {T::Q4_K, quantize::quantizeRowQ4_KWeighted}, {T::Q5_K, quantize::quantizeRowQ5_KWeighted},
    {T::Q6_K, quantize::quantizeRowQ6_KWeighted}, {T::IQ4_NL, quantize::quantizeRowIQ4_NL},
    {T::IQ4_XS, quantize::quantizeRowIQ4_XS},   {T::IQ2_XXS, quantize::quantizeRowIQ2_XXS},
    {T::IQ2_XS, quantize::quantizeRowIQ2_XS},   {T::IQ3_XXS, quantize::quantizeRowIQ3_XXS},
    {T::IQ3_S, quantize::quantizeRowIQ3_S},     {T::IQ2_S, quantize::quantizeRowIQ2_S},
    {T::IQ1_S, quantize::quantizeRowIQ1_S},     {T::IQ1_M, quantize::quantizeRowIQ1_M},
};

quantize::QuantizeRowFn findWeightedQuantizer(std::uint32_t typeId)
{
    for (const WeightedRow& row : kWeighted)
        if (typeIdValue(row.typeId) == typeId)
            return row.quantize;
    return nullptr;
}

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
    for (const QuantizerRow& row : kQuantizers)
        if (typeIdValue(row.typeId) == typeId)
            return row.quantize;
    return nullptr;
}

bool canQuantize(std::uint32_t typeId)
{
    for (const QuantizerRow& row : kQuantizers)
        if (typeIdValue(row.typeId) == typeId)
            return true;
    return false;
}

std::vector<const TypeTraits*> quantizableTypes()
{
    std::vector<const TypeTraits*> types;
    for (const QuantizerRow& row : kQuantizers)
        types.push_back(&traitsOf(row.typeId));
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
    return findWeightedQuantizer(typeId) != nullptr;
}

bool requiresImportance(std::uint32_t typeId)
{
    return typeId == typeIdValue(T::IQ2_XXS) || typeId == typeIdValue(T::IQ2_XS) || typeId == typeIdValue(T::IQ1_S);
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
    const quantize::QuantizeRowFn weighted = findWeightedQuantizer(typeId);
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
