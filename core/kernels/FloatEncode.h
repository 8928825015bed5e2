#pragma once
// f32 -> f16 / bf16 encoders, bit-exact with ggml's GGML_FP32_TO_FP16 and GGML_FP32_TO_BF16
// (ggml-impl.h). The inverse conversions live in kernels/HalfFloat.h.

#include <bit>
#include <cstdint>

namespace gguf::quantize {

// IEEE binary32 -> binary16 with round-to-nearest-even, as ggml's portable converter and the F16C
// instruction compute it: overflow gives infinity, tiny values become subnormals or zero, and a
// NaN becomes the quiet NaN 0x7E00 with the input's sign (F16C would keep payload bits; the
// difference only shows for NaN inputs).
inline std::uint16_t f32ToF16Bits(float value)
{
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
        return sign | 0x7E00u;
    if (magnitude >= 0x47800000u)  // 65536 and above (infinity included) round to infinity
        return sign | 0x7C00u;
    const std::uint32_t exponent = magnitude >> 23;
    if (exponent < 113) {
        // Result is an f16 subnormal (or zero): count units of 2^-24, rounding half to even.
        // f32 subnormals (exponent 0) are far below half a unit and give zero.
        if (exponent == 0)
            return sign;
        const std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
        const std::uint32_t shift = 126 - exponent;  // 14 .. 125
        if (shift >= 32)
            return sign;
        const std::uint32_t kept = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1);
        const std::uint32_t half = 1u << (shift - 1);
        const std::uint32_t rounded = kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
        return static_cast<std::uint16_t>(sign | rounded);
    }
    // Normal: rebias the exponent, keep 10 mantissa bits, round the 13 dropped bits half to even.
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    const std::uint32_t rebased = magnitude - (112u << 23);
    const std::uint32_t kept = rebased >> 13;
    const std::uint32_t rest = rebased & 0x1FFFu;
    const std::uint32_t rounded = kept + ((rest > 0x1000u || (rest == 0x1000u && (kept & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | rounded);
}

// binary32 -> bfloat16 as ggml_compute_fp32_to_bf16: round to nearest even; a NaN keeps its top
// bits and is forced quiet (bit 6 of the result).
inline std::uint16_t f32ToBf16Bits(float value)
{
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return static_cast<std::uint16_t>((bits >> 16) | 64u);
    return static_cast<std::uint16_t>((bits + (0x7FFFu + ((bits >> 16) & 1u))) >> 16);
}

}  // namespace gguf::quantize
