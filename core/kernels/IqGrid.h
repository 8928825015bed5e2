#pragma once
// Helpers shared by the IQ kernels: reading one element out of a packed codebook entry and
// applying a sign bit. ggml writes the sign as a multiplication by -1.f or 1.f; for every
// non-NaN value that equals negation bit for bit (signed zeros included). For a NaN (a NaN
// scale) IEEE 754 leaves the sign of a product unspecified, and compilers do turn that multiply
// into a sign-bit flip at -O3 (GCC does, for ggml as for us), so the result would depend on the
// optimisation level. Negation is specified for NaN too, so every build and every SIMD variant
// agrees, and agrees with ggml's optimised builds.

#include "core/kernels/Codebooks.h"

#include <cstdint>

namespace gguf::kernels {

// Element k (0-based) of a grid entry whose elements are packed little-endian, one per byte.
template <class Entry>
inline std::uint8_t gridByte(Entry entry, int k)
{
    return static_cast<std::uint8_t>(entry >> (8 * k));
}

// Same for iq1s_grid, whose bytes are signed (-1, 0, 1).
inline std::int8_t gridSignedByte(std::uint64_t entry, int k)
{
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(entry >> (8 * k)));
}

// -value if bit k of `signs` is set, else value.
inline float applySign(float value, std::uint8_t signs, int k)
{
    return (signs & codebooks::kmask_iq2xs[k]) ? -value : value;
}

}  // namespace gguf::kernels
