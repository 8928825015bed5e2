#include "quantize/Quantize.h"

#include "quantize/Quantizers.h"

#include <string>

namespace gguf {

namespace {

struct QuantizerRow {
    std::uint32_t typeId;
    QuantizeBlocksFn quantize;
};

// Type ids as in GgmlType.cpp, in id order.
constexpr QuantizerRow kQuantizers[] = {
    {0, quantize::quantizeF32},   {1, quantize::quantizeF16},   {2, quantize::quantizeQ4_0},
    {3, quantize::quantizeQ4_1},  {6, quantize::quantizeQ5_0},  {7, quantize::quantizeQ5_1},
    {8, quantize::quantizeQ8_0},  {10, quantize::quantizeQ2_K}, {11, quantize::quantizeQ3_K},
    {12, quantize::quantizeQ4_K}, {13, quantize::quantizeQ5_K}, {14, quantize::quantizeQ6_K},
    {30, quantize::quantizeBF16},
};

}  // namespace

QuantizeBlocksFn findQuantizer(std::uint32_t typeId)
{
    for (const QuantizerRow& row : kQuantizers)
        if (row.typeId == typeId)
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
        if (const TypeTraits* traits = findType(row.typeId))
            types.push_back(traits);
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
