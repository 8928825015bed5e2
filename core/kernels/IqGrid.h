#pragma once
// Helpers shared by the IQ kernels: reading one element out of a packed codebook entry and
// applying a sign bit the way ggml does (a multiplication by -1.f or 1.f, kept as such so the
// result, including the sign of zero, matches ggml bit for bit).

#include "kernels/Codebooks.h"

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

// -1.f if bit k of `signs` is set, else 1.f.
inline float signFactor(std::uint8_t signs, int k)
{
    return (signs & codebooks::kmask_iq2xs[k]) ? -1.f : 1.f;
}

}  // namespace gguf::kernels
