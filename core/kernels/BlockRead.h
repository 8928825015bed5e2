#pragma once
// Reading little-endian fields out of block bytes. Fields inside blocks are not aligned, so every
// multi-byte read goes through memcpy; on a little-endian host this compiles to a plain load.

#include "core/kernels/HalfFloat.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gguf::kernels {

template <class T>
inline T byteSwapped(T value)
{
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(value);
    U r = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) {
        r = static_cast<U>((r << 8) | (u & 0xFF));
        u = static_cast<U>(u >> 8);
    }
    return static_cast<T>(r);
}

// Integer of type T stored little-endian at p.
template <class T>
inline T loadLe(const std::uint8_t* p)
{
    static_assert(std::is_integral_v<T>);
    T value;
    std::memcpy(&value, p, sizeof value);
    if constexpr (std::endian::native == std::endian::big) {
        value = byteSwapped(value);
    }
    return value;
}

inline float loadF16(const std::uint8_t* p) { return f16ToF32(loadLe<std::uint16_t>(p)); }
inline float loadF32(const std::uint8_t* p) { return std::bit_cast<float>(loadLe<std::uint32_t>(p)); }
inline double loadF64(const std::uint8_t* p) { return std::bit_cast<double>(loadLe<std::uint64_t>(p)); }

}  // namespace gguf::kernels
