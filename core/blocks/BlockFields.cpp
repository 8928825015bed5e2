#include "core/blocks/BlockFields.h"

#include "core/types/GgmlType.h"
#include "core/gguf/MetadataFormat.h"
#include "core/kernels/HalfFloat.h"

#include <cstring>

namespace gguf {

std::span<const BlockField> blockFields(std::uint32_t typeId)
{
    const TypeTraits* type = findType(typeId);
    return type ? type->fields : std::span<const BlockField>{};
}

std::string decodeFieldValue(const BlockField& field, const std::uint8_t* block)
{
    const std::uint8_t* p = block + field.offset;
    switch (field.encoding) {
    case FieldEncoding::F16: {
        std::uint16_t bits;
        std::memcpy(&bits, p, 2);
        return formatFloat(f16ToF32(bits), true);
    }
    case FieldEncoding::F32: {
        float value;
        std::memcpy(&value, p, 4);
        return formatFloat(value, true);
    }
    case FieldEncoding::E8M0:
        // kvalues_fp4 are doubled, so the decoder's helper returns half the scale.
        return formatFloat(2.0 * e8m0ToF32Half(p[0]), true);
    case FieldEncoding::UE4M3x4: {
        std::string text;
        for (int i = 0; i < 4; ++i)
            text += (i ? ", " : "") + formatFloat(2.0 * ue4m3ToF32Half(p[i]), true);
        return text;
    }
    case FieldEncoding::Packed: return {};
    }
    return {};
}

}  // namespace gguf
