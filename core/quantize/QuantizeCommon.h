#pragma once
// Small pieces every quantizer shares. ggml's reference quantizers are plain C evaluated in
// single precision, one rounding per operation (no FMA: the build uses -ffp-contract=off), and
// their integer conversions have x86 semantics; these helpers reproduce both exactly.

#include "core/kernels/FloatEncode.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace gguf::quantize {

// ggml's nearest_int: adding 1.5 * 2^23 puts the rounded integer (half to even) in the low
// mantissa bits. Exact for |x| <= 2^22; outside that range (and for NaN) ggml's result is
// whatever these bits say, and so is ours, deterministically.
inline int nearestInt(float x)
{
    const float shifted = x + 12582912.0f;
    const std::int32_t bits = std::bit_cast<std::int32_t>(shifted);
    return (bits & 0x007FFFFF) - 0x00400000;
}

// A C cast of a float to an 8-bit integer as GCC/Clang compile it on x86-64: truncate to int32
// with cvttss2si (NaN and out-of-range give INT32_MIN) and keep the low byte. Well defined here
// for every input, where the C cast would be undefined outside the target range.
inline std::uint8_t castToByte(float x)
{
    std::int32_t truncated = INT32_MIN;
    if (x > -2147483904.0f && x < 2147483648.0f)
        truncated = static_cast<std::int32_t>(x);
    return static_cast<std::uint8_t>(static_cast<std::uint32_t>(truncated) & 0xFFu);
}

inline void storeF16(std::uint8_t* dst, float value)
{
    const std::uint16_t bits = f32ToF16Bits(value);
    dst[0] = static_cast<std::uint8_t>(bits & 0xFF);
    dst[1] = static_cast<std::uint8_t>(bits >> 8);
}

inline void storeU32(std::uint8_t* dst, std::uint32_t value)
{
    for (int i = 0; i < 4; ++i)
        dst[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

inline float fabsOf(float x)
{
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu);
}

}  // namespace gguf::quantize
