#include "quantize/Quantize.h"

#include "quantize/Quantizers.h"

#include <algorithm>
#include <string>

namespace gguf {

namespace {

using T = GgmlTypeId;

struct QuantizerRow {
    GgmlTypeId typeId;
    QuantizeBlocksFn quantize;
};

// In type-id order (tst_type_table checks every row against the type table).
constexpr QuantizerRow kQuantizers[] = {
    {T::F32, quantize::quantizeF32},   {T::F16, quantize::quantizeF16},   {T::Q4_0, quantize::quantizeQ4_0},
    {T::Q4_1, quantize::quantizeQ4_1}, {T::Q5_0, quantize::quantizeQ5_0}, {T::Q5_1, quantize::quantizeQ5_1},
    {T::Q8_0, quantize::quantizeQ8_0}, {T::Q2_K, quantize::quantizeQ2_K}, {T::Q3_K, quantize::quantizeQ3_K},
    {T::Q4_K, quantize::quantizeQ4_K}, {T::Q5_K, quantize::quantizeQ5_K}, {T::Q6_K, quantize::quantizeQ6_K},
    {T::BF16, quantize::quantizeBF16},
};

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
    return findQuantizer(typeId) != nullptr;
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
        if (type->kind == TypeKind::Quantized)
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

}  // namespace gguf
