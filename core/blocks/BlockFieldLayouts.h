#pragma once
// The byte fields of one block of each quantized type, as ggml-common.h's structs declare them,
// in byte order. Each type's row in core/types/GgmlType.cpp points at its list, and checks at
// compile time that the list tiles the block exactly.

#include "core/blocks/BlockFields.h"
#include "core/kernels/BlockLayouts.h"

namespace gguf::blockfields {

namespace b = blocks;
using E = FieldEncoding;

inline constexpr BlockField kQ4_0[] = {{"d", b::Q4_0::d, 2, E::F16, "block scale"}, {"qs", b::Q4_0::qs, 16, E::Packed, "32 four-bit quants (low nibbles: 0-15, high: 16-31)"}};
inline constexpr BlockField kQ4_1[] = {{"d", b::Q4_1::d, 2, E::F16, "block scale"}, {"m", b::Q4_1::m, 2, E::F16, "block min"},
                                {"qs", b::Q4_1::qs, 16, E::Packed, "32 four-bit quants"}};
inline constexpr BlockField kQ5_0[] = {{"d", b::Q5_0::d, 2, E::F16, "block scale"}, {"qh", b::Q5_0::qh, 4, E::Packed, "fifth bit of each of the 32 quants"},
                                {"qs", b::Q5_0::qs, 16, E::Packed, "low four bits of the quants"}};
inline constexpr BlockField kQ5_1[] = {{"d", b::Q5_1::d, 2, E::F16, "block scale"}, {"m", b::Q5_1::m, 2, E::F16, "block min"},
                                {"qh", b::Q5_1::qh, 4, E::Packed, "fifth bit of each quant"}, {"qs", b::Q5_1::qs, 16, E::Packed, "low four bits"}};
inline constexpr BlockField kQ8_0[] = {{"d", b::Q8_0::d, 2, E::F16, "block scale"}, {"qs", b::Q8_0::qs, 32, E::Packed, "32 signed 8-bit quants"}};
inline constexpr BlockField kQ8_1[] = {{"d", b::Q8_1::d, 2, E::F16, "block scale"}, {"s", b::Q8_1::s, 2, E::F16, "d times the sum of the quants"},
                                {"qs", b::Q8_1::qs, 32, E::Packed, "32 signed 8-bit quants"}};
inline constexpr BlockField kQ2_K[] = {{"scales", b::Q2_K::scales, 16, E::Packed, "16 sub-blocks: low nibble scale, high nibble min"},
                                {"qs", b::Q2_K::qs, 64, E::Packed, "256 two-bit quants"},
                                {"d", b::Q2_K::d, 2, E::F16, "super-block scale of the scales"},
                                {"dmin", b::Q2_K::dmin, 2, E::F16, "super-block scale of the mins"}};
inline constexpr BlockField kQ3_K[] = {{"hmask", b::Q3_K::hmask, 32, E::Packed, "high bit of each quant"},
                                {"qs", b::Q3_K::qs, 64, E::Packed, "low two bits of the 256 quants"},
                                {"scales", b::Q3_K::scales, 12, E::Packed, "16 six-bit signed scales (offset 32), packed"},
                                {"d", b::Q3_K::d, 2, E::F16, "super-block scale"}};
inline constexpr BlockField kQ4_K[] = {{"d", b::Q4_K::d, 2, E::F16, "super-block scale of the scales"},
                                {"dmin", b::Q4_K::dmin, 2, E::F16, "super-block scale of the mins"},
                                {"scales", b::Q4_K::scales, 12, E::Packed, "8 six-bit scales and 8 six-bit mins, packed"},
                                {"qs", b::Q4_K::qs, 128, E::Packed, "256 four-bit quants"}};
inline constexpr BlockField kQ5_K[] = {{"d", b::Q5_K::d, 2, E::F16, "super-block scale of the scales"},
                                {"dmin", b::Q5_K::dmin, 2, E::F16, "super-block scale of the mins"},
                                {"scales", b::Q5_K::scales, 12, E::Packed, "8 six-bit scales and 8 six-bit mins, packed"},
                                {"qh", b::Q5_K::qh, 32, E::Packed, "fifth bit of each quant"},
                                {"qs", b::Q5_K::qs, 128, E::Packed, "low four bits of the 256 quants"}};
inline constexpr BlockField kQ6_K[] = {{"ql", b::Q6_K::ql, 128, E::Packed, "low four bits of the 256 quants"},
                                {"qh", b::Q6_K::qh, 64, E::Packed, "high two bits of the quants"},
                                {"scales", b::Q6_K::scales, 16, E::Packed, "16 signed 8-bit sub-block scales"},
                                {"d", b::Q6_K::d, 2, E::F16, "super-block scale"}};
inline constexpr BlockField kQ8_K[] = {{"d", b::Q8_K::d, 4, E::F32, "block scale (f32)"}, {"qs", b::Q8_K::qs, 256, E::Packed, "256 signed 8-bit quants"},
                                {"bsums", b::Q8_K::bsums, 32, E::Packed, "16 int16 sums of groups of 16 quants"}};
inline constexpr BlockField kIQ2_XXS[] = {{"d", b::IQ2_XXS::d, 2, E::F16, "super-block scale"},
                                   {"qs", b::IQ2_XXS::qs, 64, E::Packed, "grid indices, signs and 4-bit scales"}};
inline constexpr BlockField kIQ2_XS[] = {{"d", b::IQ2_XS::d, 2, E::F16, "super-block scale"},
                                  {"qs", b::IQ2_XS::qs, 64, E::Packed, "32 u16: 9-bit grid index + 7 sign bits"},
                                  {"scales", b::IQ2_XS::scales, 8, E::Packed, "16 four-bit sub-block scales"}};
inline constexpr BlockField kIQ2_S[] = {{"d", b::IQ2_S::d, 2, E::F16, "super-block scale"},
                                 {"qs", b::IQ2_S::qs, 64, E::Packed, "32 grid-index bytes, then 32 sign bytes"},
                                 {"qh", b::IQ2_S::qh, 8, E::Packed, "high bits of the grid indices"},
                                 {"scales", b::IQ2_S::scales, 8, E::Packed, "16 four-bit sub-block scales"}};
inline constexpr BlockField kIQ3_XXS[] = {{"d", b::IQ3_XXS::d, 2, E::F16, "super-block scale"},
                                   {"qs", b::IQ3_XXS::qs, 96, E::Packed, "64 grid indices, then 8 u32 of scale and sign bits"}};
inline constexpr BlockField kIQ3_S[] = {{"d", b::IQ3_S::d, 2, E::F16, "super-block scale"}, {"qs", b::IQ3_S::qs, 64, E::Packed, "grid indices (low 8 bits)"},
                                 {"qh", b::IQ3_S::qh, 8, E::Packed, "ninth bit of the grid indices"},
                                 {"signs", b::IQ3_S::signs, 32, E::Packed, "sign bits"},
                                 {"scales", b::IQ3_S::scales, 4, E::Packed, "8 four-bit sub-block scales"}};
inline constexpr BlockField kIQ1_S[] = {{"d", b::IQ1_S::d, 2, E::F16, "super-block scale"}, {"qs", b::IQ1_S::qs, 32, E::Packed, "grid indices (low 8 bits)"},
                                 {"qh", b::IQ1_S::qh, 16, E::Packed, "8 u16: high index bits, 3-bit scale, delta sign"}};
inline constexpr BlockField kIQ1_M[] = {{"qs", b::IQ1_M::qs, 32, E::Packed, "grid indices (low 8 bits)"},
                                 {"qh", b::IQ1_M::qh, 16, E::Packed, "high index bits and delta signs"},
                                 {"scales", b::IQ1_M::scales, 8, E::Packed, "3-bit sub-block scales; top nibbles hold the f16 super scale"}};
inline constexpr BlockField kIQ4_NL[] = {{"d", b::IQ4_NL::d, 2, E::F16, "block scale"},
                                  {"qs", b::IQ4_NL::qs, 16, E::Packed, "32 four-bit indices into kvalues_iq4nl"}};
inline constexpr BlockField kIQ4_XS[] = {{"d", b::IQ4_XS::d, 2, E::F16, "super-block scale"},
                                  {"scales_h", b::IQ4_XS::scalesH, 2, E::Packed, "high two bits of the 8 sub-block scales"},
                                  {"scales_l", b::IQ4_XS::scalesL, 4, E::Packed, "low four bits of the 8 sub-block scales"},
                                  {"qs", b::IQ4_XS::qs, 128, E::Packed, "256 four-bit indices into kvalues_iq4nl"}};
inline constexpr BlockField kTQ1_0[] = {{"qs", b::TQ1_0::qs, 48, E::Packed, "5 ternary digits per byte"},
                                 {"qh", b::TQ1_0::qh, 4, E::Packed, "4 ternary digits per byte"}, {"d", b::TQ1_0::d, 2, E::F16, "block scale"}};
inline constexpr BlockField kTQ2_0[] = {{"qs", b::TQ2_0::qs, 64, E::Packed, "256 two-bit ternary quants"}, {"d", b::TQ2_0::d, 2, E::F16, "block scale"}};
inline constexpr BlockField kMXFP4[] = {{"e", b::MXFP4::e, 1, E::E8M0, "shared E8M0 exponent"},
                                 {"qs", b::MXFP4::qs, 16, E::Packed, "32 E2M1 values (four bits each)"}};
inline constexpr BlockField kNVFP4[] = {{"d", b::NVFP4::d, 4, E::UE4M3x4, "four UE4M3 sub-block scales"},
                                 {"qs", b::NVFP4::qs, 32, E::Packed, "64 E2M1 values (four bits each)"}};
inline constexpr BlockField kQ1_0[] = {{"d", b::Q1_0::d, 2, E::F16, "block scale"}, {"qs", b::Q1_0::qs, 16, E::Packed, "128 sign bits"}};
inline constexpr BlockField kQ2_0[] = {{"d", b::Q2_0::d, 2, E::F16, "block scale"}, {"qs", b::Q2_0::qs, 16, E::Packed, "64 two-bit quants"}};

}  // namespace gguf::blockfields
