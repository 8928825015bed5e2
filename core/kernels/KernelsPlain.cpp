// Plain element types: f32 (identity), f16 and bf16 (ggml's to_float), f64 and the integer
// types (ggml has no to_float for these; the contract is a plain C cast to float, i.e. IEEE
// round-to-nearest-even).

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/ScalarKernels.h"

#include <bit>
#include <cstring>

namespace gguf::kernels {

// f32: copied bit for bit, so NaN payloads (and signaling NaNs) survive untouched.
void dequantizeF32(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(dst, src, blockCount * blocks::F32::bytes);
    } else {
        for (std::size_t i = 0; i < blockCount; ++i) {
            dst[i] = loadF32(src + i * blocks::F32::bytes);
        }
    }
}

void dequantizeF16(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = loadF16(src + i * blocks::F16::bytes);
    }
}

void dequantizeBF16(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = bf16ToF32(loadLe<std::uint16_t>(src + i * blocks::BF16::bytes));
    }
}

void dequantizeF64(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = static_cast<float>(loadF64(src + i * blocks::F64::bytes));
    }
}

void dequantizeI8(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = static_cast<float>(static_cast<std::int8_t>(src[i]));
    }
}

void dequantizeI16(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = static_cast<float>(loadLe<std::int16_t>(src + i * blocks::I16::bytes));
    }
}

void dequantizeI32(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = static_cast<float>(loadLe<std::int32_t>(src + i * blocks::I32::bytes));
    }
}

void dequantizeI64(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i) {
        dst[i] = static_cast<float>(loadLe<std::int64_t>(src + i * blocks::I64::bytes));
    }
}

}  // namespace gguf::kernels
