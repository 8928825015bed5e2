#pragma once
// Scalar conversions of ggml's small float formats to f32, bit-exact with ggml (ggml-impl.h).
// Usable anywhere in the core; no dependencies beyond the standard library.

#include <bit>
#include <cmath>
#include <cstdint>

namespace gguf {

// IEEE binary16 -> binary32, ggml's portable algorithm (after Maratyszcza/FP16). Exact for every
// pattern: zeros, subnormals, infinities and NaNs. A signaling NaN comes out quiet (0x7C01 ->
// 0x7FC02000, as F16C does) because the normal path goes through a float multiplication; that
// multiplication must therefore stay a real runtime float operation.
inline float f16ToF32(std::uint16_t h)
{
    const std::uint32_t w = std::uint32_t(h) << 16;
    const std::uint32_t sign = w & 0x80000000u;
    const std::uint32_t twoW = w + w;

    // Normal, Inf and NaN: move exponent and mantissa into place, then rebias with one multiply.
    constexpr std::uint32_t expOffset = 0xE0u << 23;
    constexpr float expScale = 0x1.0p-112f;
    const float normalized = std::bit_cast<float>((twoW >> 4) + expOffset) * expScale;

    // Subnormal: build 0.5 + m * 2^-24 (the "magic" float) and subtract the bias 0.5 exactly.
    constexpr std::uint32_t magicMask = 126u << 23;
    constexpr float magicBias = 0.5f;
    const float denormalized = std::bit_cast<float>((twoW >> 17) | magicMask) - magicBias;

    constexpr std::uint32_t denormalizedCutoff = 1u << 27;
    const std::uint32_t bits = sign
        | (twoW < denormalizedCutoff ? std::bit_cast<std::uint32_t>(denormalized)
                                     : std::bit_cast<std::uint32_t>(normalized));
    return std::bit_cast<float>(bits);
}

// bfloat16 is the top half of an f32: no rounding, NaN payloads kept as they are.
inline float bf16ToF32(std::uint16_t b)
{
    return std::bit_cast<float>(std::uint32_t(b) << 16);
}

// E8M0 (MXFP4 block scale) -> 2^(e-127) / 2. The halving matches ggml's kvalues_fp4, which hold
// twice the E2M1 values. e = 0 and 1 give subnormal results; e = 0xFF is not treated as NaN
// (ggml ignores it too).
inline float e8m0ToF32Half(std::uint8_t e)
{
    const std::uint32_t bits = e < 2 ? (0x00200000u << e) : (std::uint32_t(e - 1) << 23);
    return std::bit_cast<float>(bits);
}

// UE4M3 (NVFP4 sub-block scale: unsigned, 4 exponent bits with bias 7, 3 mantissa bits) -> value
// / 2, again because kvalues_fp4 are doubled. As in ggml, bit 7 is ignored and both 0x00 and 0x7F
// (the E4M3 NaN pattern) decode to 0.
inline float ue4m3ToF32Half(std::uint8_t x)
{
    if (x == 0 || x == 0x7F) {
        return 0.0f;
    }
    const int exponent = (x >> 3) & 0xF;
    const int mantissa = x & 0x7;
    const float raw = exponent == 0 ? std::ldexp(float(mantissa), -9)
                                    : std::ldexp(1.0f + float(mantissa) / 8.0f, exponent - 7);
    return raw * 0.5f;
}

}  // namespace gguf
