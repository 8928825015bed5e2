// Plain float targets: f32 copies, f16 and bf16 round to nearest even as ggml_quantize_chunk does
// (ggml_fp32_to_fp16_row / ggml_fp32_to_bf16_row_ref).

#include "core/kernels/FloatEncode.h"
#include "core/quantize/Quantizers.h"

#include <bit>

namespace gguf::quantize {

namespace {
void storeLe(std::uint8_t* dst, std::uint32_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        dst[i] = static_cast<std::uint8_t>(value >> (8 * i));
}
}  // namespace

void quantizeF32(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i)
        storeLe(dst + 4 * i, std::bit_cast<std::uint32_t>(src[i]), 4);
}

void quantizeF16(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i)
        storeLe(dst + 2 * i, f32ToF16Bits(src[i]), 2);
}

void quantizeBF16(const float* src, std::uint8_t* dst, std::size_t blockCount)
{
    for (std::size_t i = 0; i < blockCount; ++i)
        storeLe(dst + 2 * i, f32ToBf16Bits(src[i]), 2);
}

}  // namespace gguf::quantize
