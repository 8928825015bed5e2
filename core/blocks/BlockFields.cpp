#include "core/blocks/BlockFields.h"

#include "core/types/GgmlType.h"
#include "core/gguf/MetadataFormat.h"
#include "core/kernels/BlockLayouts.h"
#include "core/kernels/HalfFloat.h"

#include <cstring>

namespace gguf {

namespace {
namespace b = blocks;
using E = FieldEncoding;

constexpr BlockField kQ4_0[] = {{"d", b::Q4_0::d, 2, E::F16, "block scale"}, {"qs", b::Q4_0::qs, 16, E::Packed, "32 four-bit quants (low nibbles: 0-15, high: 16-31)"}};
constexpr BlockField kQ4_1[] = {{"d", b::Q4_1::d, 2, E::F16, "block scale"}, {"m", b::Q4_1::m, 2, E::F16, "block min"},
                                {"qs", b::Q4_1::qs, 16, E::Packed, "32 four-bit quants"}};
constexpr BlockField kQ5_0[] = {{"d", b::Q5_0::d, 2, E::F16, "block scale"}, {"qh", b::Q5_0::qh, 4, E::Packed, "fifth bit of each of the 32 quants"},
                                {"qs", b::Q5_0::qs, 16, E::Packed, "low four bits of the quants"}};
constexpr BlockField kQ5_1[] = {{"d", b::Q5_1::d, 2, E::F16, "block scale"}, {"m", b::Q5_1::m, 2, E::F16, "block min"},
                                {"qh", b::Q5_1::qh, 4, E::Packed, "fifth bit of each quant"}, {"qs", b::Q5_1::qs, 16, E::Packed, "low four bits"}};
constexpr BlockField kQ8_0[] = {{"d", b::Q8_0::d, 2, E::F16, "block scale"}, {"qs", b::Q8_0::qs, 32, E::Packed, "32 signed 8-bit quants"}};
constexpr BlockField kQ8_1[] = {{"d", b::Q8_1::d, 2, E::F16, "block scale"}, {"s", b::Q8_1::s, 2, E::F16, "d times the sum of the quants"},
                                {"qs", b::Q8_1::qs, 32, E::Packed, "32 signed 8-bit quants"}};
constexpr BlockField kQ2_K[] = {{"scales", b::Q2_K::scales, 16, E::Packed, "16 sub-blocks: low nibble scale, high nibble min"},
                                {"qs", b::Q2_K::qs, 64, E::Packed, "256 two-bit quants"},
                                {"d", b::Q2_K::d, 2, E::F16, "super-block scale of the scales"},
                                {"dmin", b::Q2_K::dmin, 2, E::F16, "super-block scale of the mins"}};
constexpr BlockField kQ3_K[] = {{"hmask", b::Q3_K::hmask, 32, E::Packed, "high bit of each quant"},
                                {"qs", b::Q3_K::qs, 64, E::Packed, "low two bits of the 256 quants"},
                                {"scales", b::Q3_K::scales, 12, E::Packed, "16 six-bit signed scales (offset 32), packed"},
                                {"d", b::Q3_K::d, 2, E::F16, "super-block scale"}};
constexpr BlockField kQ4_K[] = {{"d", b::Q4_K::d, 2, E::F16, "super-block scale of the scales"},
                                {"dmin", b::Q4_K::dmin, 2, E::F16, "super-block scale of the mins"},
                                {"scales", b::Q4_K::scales, 12, E::Packed, "8 six-bit scales and 8 six-bit mins, packed"},
                                {"qs", b::Q4_K::qs, 128, E::Packed, "256 four-bit quants"}};
constexpr BlockField kQ5_K[] = {{"d", b::Q5_K::d, 2, E::F16, "super-block scale of the scales"},
                                {"dmin", b::Q5_K::dmin, 2, E::F16, "super-block scale of the mins"},
                                {"scales", b::Q5_K::scales, 12, E::Packed, "8 six-bit scales and 8 six-bit mins, packed"},
                                {"qh", b::Q5_K::qh, 32, E::Packed, "fifth bit of each quant"},
                                {"qs", b::Q5_K::qs, 128, E::Packed, "low four bits of the 256 quants"}};
constexpr BlockField kQ6_K[] = {{"ql", b::Q6_K::ql, 128, E::Packed, "low four bits of the 256 quants"},
                                {"qh", b::Q6_K::qh, 64, E::Packed, "high two bits of the quants"},
                                {"scales", b::Q6_K::scales, 16, E::Packed, "16 signed 8-bit sub-block scales"},
                                {"d", b::Q6_K::d, 2, E::F16, "super-block scale"}};
constexpr BlockField kQ8_K[] = {{"d", b::Q8_K::d, 4, E::F32, "block scale (f32)"}, {"qs", b::Q8_K::qs, 256, E::Packed, "256 signed 8-bit quants"},
                                {"bsums", b::Q8_K::bsums, 32, E::Packed, "16 int16 sums of groups of 16 quants"}};
constexpr BlockField kIQ2_XXS[] = {{"d", b::IQ2_XXS::d, 2, E::F16, "super-block scale"},
                                   {"qs", b::IQ2_XXS::qs, 64, E::Packed, "grid indices, signs and 4-bit scales"}};
constexpr BlockField kIQ2_XS[] = {{"d", b::IQ2_XS::d, 2, E::F16, "super-block scale"},
                                  {"qs", b::IQ2_XS::qs, 64, E::Packed, "32 u16: 9-bit grid index + 7 sign bits"},
                                  {"scales", b::IQ2_XS::scales, 8, E::Packed, "16 four-bit sub-block scales"}};
constexpr BlockField kIQ2_S[] = {{"d", b::IQ2_S::d, 2, E::F16, "super-block scale"},
                                 {"qs", b::IQ2_S::qs, 64, E::Packed, "32 grid-index bytes, then 32 sign bytes"},
                                 {"qh", b::IQ2_S::qh, 8, E::Packed, "high bits of the grid indices"},
                                 {"scales", b::IQ2_S::scales, 8, E::Packed, "16 four-bit sub-block scales"}};
constexpr BlockField kIQ3_XXS[] = {{"d", b::IQ3_XXS::d, 2, E::F16, "super-block scale"},
                                   {"qs", b::IQ3_XXS::qs, 96, E::Packed, "64 grid indices, then 8 u32 of scale and sign bits"}};
constexpr BlockField kIQ3_S[] = {{"d", b::IQ3_S::d, 2, E::F16, "super-block scale"}, {"qs", b::IQ3_S::qs, 64, E::Packed, "grid indices (low 8 bits)"},
                                 {"qh", b::IQ3_S::qh, 8, E::Packed, "ninth bit of the grid indices"},
                                 {"signs", b::IQ3_S::signs, 32, E::Packed, "sign bits"},
                                 {"scales", b::IQ3_S::scales, 4, E::Packed, "8 four-bit sub-block scales"}};
constexpr BlockField kIQ1_S[] = {{"d", b::IQ1_S::d, 2, E::F16, "super-block scale"}, {"qs", b::IQ1_S::qs, 32, E::Packed, "grid indices (low 8 bits)"},
                                 {"qh", b::IQ1_S::qh, 16, E::Packed, "8 u16: high index bits, 3-bit scale, delta sign"}};
constexpr BlockField kIQ1_M[] = {{"qs", b::IQ1_M::qs, 32, E::Packed, "grid indices (low 8 bits)"},
                                 {"qh", b::IQ1_M::qh, 16, E::Packed, "high index bits and delta signs"},
                                 {"scales", b::IQ1_M::scales, 8, E::Packed, "3-bit sub-block scales; top nibbles hold the f16 super scale"}};
constexpr BlockField kIQ4_NL[] = {{"d", b::IQ4_NL::d, 2, E::F16, "block scale"},
                                  {"qs", b::IQ4_NL::qs, 16, E::Packed, "32 four-bit indices into kvalues_iq4nl"}};
constexpr BlockField kIQ4_XS[] = {{"d", b::IQ4_XS::d, 2, E::F16, "super-block scale"},
                                  {"scales_h", b::IQ4_XS::scalesH, 2, E::Packed, "high two bits of the 8 sub-block scales"},
                                  {"scales_l", b::IQ4_XS::scalesL, 4, E::Packed, "low four bits of the 8 sub-block scales"},
                                  {"qs", b::IQ4_XS::qs, 128, E::Packed, "256 four-bit indices into kvalues_iq4nl"}};
constexpr BlockField kTQ1_0[] = {{"qs", b::TQ1_0::qs, 48, E::Packed, "5 ternary digits per byte"},
                                 {"qh", b::TQ1_0::qh, 4, E::Packed, "4 ternary digits per byte"}, {"d", b::TQ1_0::d, 2, E::F16, "block scale"}};
constexpr BlockField kTQ2_0[] = {{"qs", b::TQ2_0::qs, 64, E::Packed, "256 two-bit ternary quants"}, {"d", b::TQ2_0::d, 2, E::F16, "block scale"}};
constexpr BlockField kMXFP4[] = {{"e", b::MXFP4::e, 1, E::E8M0, "shared E8M0 exponent"},
                                 {"qs", b::MXFP4::qs, 16, E::Packed, "32 E2M1 values (four bits each)"}};
constexpr BlockField kNVFP4[] = {{"d", b::NVFP4::d, 4, E::UE4M3x4, "four UE4M3 sub-block scales"},
                                 {"qs", b::NVFP4::qs, 32, E::Packed, "64 E2M1 values (four bits each)"}};
constexpr BlockField kQ1_0[] = {{"d", b::Q1_0::d, 2, E::F16, "block scale"}, {"qs", b::Q1_0::qs, 16, E::Packed, "128 sign bits"}};
constexpr BlockField kQ2_0[] = {{"d", b::Q2_0::d, 2, E::F16, "block scale"}, {"qs", b::Q2_0::qs, 16, E::Packed, "64 two-bit quants"}};

using T = GgmlTypeId;
struct TypeFields {
    GgmlTypeId typeId;
    std::span<const BlockField> fields;
};
constexpr TypeFields kTable[] = {
    {T::Q4_0, kQ4_0}, {T::Q4_1, kQ4_1}, {T::Q5_0, kQ5_0}, {T::Q5_1, kQ5_1}, {T::Q8_0, kQ8_0}, {T::Q8_1, kQ8_1},
    {T::Q2_K, kQ2_K}, {T::Q3_K, kQ3_K}, {T::Q4_K, kQ4_K}, {T::Q5_K, kQ5_K}, {T::Q6_K, kQ6_K}, {T::Q8_K, kQ8_K},
    {T::IQ2_XXS, kIQ2_XXS}, {T::IQ2_XS, kIQ2_XS}, {T::IQ3_XXS, kIQ3_XXS}, {T::IQ1_S, kIQ1_S}, {T::IQ4_NL, kIQ4_NL},
    {T::IQ3_S, kIQ3_S}, {T::IQ2_S, kIQ2_S}, {T::IQ4_XS, kIQ4_XS}, {T::IQ1_M, kIQ1_M}, {T::TQ1_0, kTQ1_0},
    {T::TQ2_0, kTQ2_0}, {T::MXFP4, kMXFP4}, {T::NVFP4, kNVFP4}, {T::Q1_0, kQ1_0}, {T::Q2_0, kQ2_0},
};
}  // namespace

std::span<const BlockField> blockFields(std::uint32_t typeId)
{
    for (const TypeFields& entry : kTable)
        if (typeIdValue(entry.typeId) == typeId)
            return entry.fields;
    return {};
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
