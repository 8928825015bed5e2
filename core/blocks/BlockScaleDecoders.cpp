#include "core/blocks/BlockScaleCodec.h"

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/HalfFloat.h"

namespace gguf::scaledecoders {

using kernels::loadF16;
using kernels::loadF32;
using kernels::loadLe;
namespace b = blocks;

// ---- one scale per block ------------------------------------------------------------------

// Q4_0, Q5_0, Q8_0, IQ4_NL, Q1_0, Q2_0, TQ1_0, TQ2_0: a single f16 d (wherever the layout puts
// it) scales every element's level.
template <class L>
void f16Scale(const std::uint8_t* block, float* super, float* sub, float*)
{
    super[0] = sub[0] = loadF16(block + L::d);
}

// Q4_1, Q5_1: f16 d and f16 m; value = q * d + m.
template <class L>
void f16ScaleAndMin(const std::uint8_t* block, float* super, float* sub, float* mins)
{
    super[0] = sub[0] = loadF16(block + L::d);
    super[1] = mins[0] = loadF16(block + L::m);
}

// Q8_1: f16 d and f16 s = d * sum(q). s only serves dot products; it is reported, not applied.
void q8_1Scales(const std::uint8_t* block, float* super, float* sub, float*)
{
    super[0] = sub[0] = loadF16(block + b::Q8_1::d);
    super[1] = loadF16(block + b::Q8_1::s);
}

// Q8_K: an f32 d (the only type with a full-precision block scale).
void q8_KScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    super[0] = sub[0] = loadF32(block + b::Q8_K::d);
}

// MXFP4: one E8M0 exponent e. The format's scale is 2^(e-127); the dequantizer multiplies
// kvalues_fp4 (doubled E2M1 values) by half of it.
void mxfp4Scales(const std::uint8_t* block, float* super, float* sub, float*)
{
    const float half = e8m0ToF32Half(block[b::MXFP4::e]);
    sub[0] = half;
    super[0] = half * 2.0f;  // exact: a power of two times two
}

// ---- K-quants -----------------------------------------------------------------------------

// Q2_K: 16 sub-blocks of 16; scales[j] = 4-bit scale (low nibble) and 4-bit min (high nibble).
void q2_KScales(const std::uint8_t* block, float* super, float* sub, float* mins)
{
    using B = b::Q2_K;
    const float d = super[0] = loadF16(block + B::d);
    const float dmin = super[1] = loadF16(block + B::dmin);
    for (int j = 0; j < 16; ++j) {
        const std::uint8_t sc = block[B::scales + j];
        sub[j] = d * float(sc & 0xF);
        mins[j] = dmin * float(sc >> 4);
    }
}

// Q3_K: 16 sub-blocks of 16; sixteen 6-bit scales (offset 32) in 12 bytes: low 4 bits in the
// nibbles of bytes 0-7 (low nibbles first), high 2 bits in bytes 8-11.
void q3_KScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::Q3_K;
    const float d = super[0] = loadF16(block + B::d);
    const std::uint8_t* packed = block + B::scales;
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? (packed[j] & 0xF) : (packed[j - 8] >> 4);
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        sub[j] = d * float((low | (high << 4)) - 32);
    }
}

// Q4_K, Q5_K: 8 sub-blocks of 32; eight 6-bit scales and eight 6-bit mins in 12 bytes (ggml's
// get_scale_min_k4): sub-blocks 0-3 keep them in bytes 0-3 / 4-7, sub-blocks 4-7 keep the low 4
// bits in the nibbles of bytes 8-11 and the top 2 bits in the spare top bits of bytes 0-7.
template <class L>
void q4_KLikeScales(const std::uint8_t* block, float* super, float* sub, float* mins)
{
    const float d = super[0] = loadF16(block + L::d);
    const float dmin = super[1] = loadF16(block + L::dmin);
    const std::uint8_t* q = block + L::scales;
    for (int j = 0; j < 8; ++j) {
        const int scale = j < 4 ? (q[j] & 63) : ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        const int min = j < 4 ? (q[j + 4] & 63) : ((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
        sub[j] = d * float(scale);
        mins[j] = dmin * float(min);
    }
}

// Q6_K: 16 sub-blocks of 16, int8 scales[j] for elements 16j..16j+15; value = (d * sc) * (q - 32).
void q6_KScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::Q6_K;
    const float d = super[0] = loadF16(block + B::d);
    for (int j = 0; j < 16; ++j) {
        sub[j] = d * float(static_cast<std::int8_t>(block[B::scales + j]));
    }
}

// ---- IQ types -----------------------------------------------------------------------------

// IQ2_XXS: 8 sub-blocks of 32; each sub-block's 8 qs bytes end in a u32 whose top 4 bits are the
// scale. db = d * (0.5 + s) * 0.25.
void iq2_XXSScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ2_XXS;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint32_t signsAndScale = loadLe<std::uint32_t>(block + B::qs + 8 * ib + 4);
        sub[ib] = d * (0.5f + float(signsAndScale >> 28)) * 0.25f;
    }
}

// IQ2_XS, IQ2_S: 16 sub-blocks of 16; scales[ib] holds the 4-bit scale of elements 32ib..+15
// (low nibble) and 32ib+16..+31 (high nibble). db = d * (0.5 + s) * 0.25.
template <class L>
void iq2_XSLikeScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    const float d = super[0] = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t scales = block[L::scales + ib];
        sub[2 * ib + 0] = d * (0.5f + float(scales & 0xF)) * 0.25f;
        sub[2 * ib + 1] = d * (0.5f + float(scales >> 4)) * 0.25f;
    }
}

// IQ3_XXS: 8 sub-blocks of 32; after the 64 grid-index bytes, one u32 per sub-block whose top 4
// bits are the scale. db = d * (0.5 + s) * 0.5.
void iq3_XXSScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ3_XXS;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint32_t signsAndScale = loadLe<std::uint32_t>(block + B::qs + 64 + 4 * ib);
        sub[ib] = d * (0.5f + float(signsAndScale >> 28)) * 0.5f;
    }
}

// IQ3_S: 8 sub-blocks of 32; scales[4] hold two 4-bit scales each (even sub-block in the low
// nibble). db = d * (1 + 2s), the odd factor computed in integers as ggml does.
void iq3_SScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ3_S;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t scales = block[B::scales + ib / 2];
        const int scale = ib % 2 == 0 ? (scales & 0xF) : (scales >> 4);
        sub[ib] = d * float(1 + 2 * scale);
    }
}

// IQ1_S: 8 sub-blocks of 32; qh[ib] (u16) bits 12-14 are the scale. dl = d * (2s + 1); the
// per-group delta (+-1/8, bit 15) belongs to the level, not the scale.
void iq1_SScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ1_S;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint16_t qh = loadLe<std::uint16_t>(block + B::qh + 2 * ib);
        sub[ib] = d * float(2 * ((qh >> 12) & 7) + 1);
    }
}

// IQ1_M: 16 sub-blocks of 16; four u16 `scales` hold four 3-bit scales each in bits 0-11 and,
// in their top nibbles, the four nibbles of the f16 super-block scale d. dl = d * (2s + 1).
void iq1_MScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ1_M;
    const std::uint8_t* scales = block + B::scales;
    const std::uint16_t sc[4] = {loadLe<std::uint16_t>(scales), loadLe<std::uint16_t>(scales + 2),
                                 loadLe<std::uint16_t>(scales + 4), loadLe<std::uint16_t>(scales + 6)};
    const auto dBits = std::uint16_t((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00)
                                     | (sc[3] & 0xF000));
    const float d = super[0] = f16ToF32(dBits);
    for (int j = 0; j < 16; ++j) {
        sub[j] = d * float(2 * ((sc[j / 4] >> (3 * (j % 4))) & 7) + 1);
    }
}

// IQ4_XS: 8 sub-blocks of 32; 6-bit scales (offset 32): low 4 bits = nibble ib%2 of
// scalesL[ib/2], high 2 bits = bits 2ib..2ib+1 of the u16 scalesH. dl = d * (s - 32).
void iq4_XSScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ4_XS;
    const float d = super[0] = loadF16(block + B::d);
    const std::uint16_t scalesH = loadLe<std::uint16_t>(block + B::scalesH);
    for (int ib = 0; ib < 8; ++ib) {
        const int low = (block[B::scalesL + ib / 2] >> (4 * (ib % 2))) & 0xF;
        const int high = (scalesH >> (2 * ib)) & 3;
        sub[ib] = d * float((low | (high << 4)) - 32);
    }
}

// NVFP4: no block-wide scale; 4 sub-blocks of 16, each with a UE4M3 scale byte. As for MXFP4 the
// dequantizer applies half of it to the doubled kvalues_fp4.
void nvfp4Scales(const std::uint8_t* block, float*, float* sub, float*)
{
    for (std::size_t s = 0; s < b::NVFP4::elements / b::NVFP4::subBlock; ++s) {
        sub[s] = ue4m3ToF32Half(block[b::NVFP4::d + s]);
    }
}

// The layouts the type table uses each template with.
template void f16Scale<b::Q4_0>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::Q5_0>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::Q8_0>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::IQ4_NL>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::TQ1_0>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::TQ2_0>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::Q1_0>(const std::uint8_t*, float*, float*, float*);
template void f16Scale<b::Q2_0>(const std::uint8_t*, float*, float*, float*);
template void f16ScaleAndMin<b::Q4_1>(const std::uint8_t*, float*, float*, float*);
template void f16ScaleAndMin<b::Q5_1>(const std::uint8_t*, float*, float*, float*);
template void q4_KLikeScales<b::Q4_K>(const std::uint8_t*, float*, float*, float*);
template void q4_KLikeScales<b::Q5_K>(const std::uint8_t*, float*, float*, float*);
template void iq2_XSLikeScales<b::IQ2_XS>(const std::uint8_t*, float*, float*, float*);
template void iq2_XSLikeScales<b::IQ2_S>(const std::uint8_t*, float*, float*, float*);

}  // namespace gguf::scaledecoders
