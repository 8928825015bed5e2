// Legacy 32-element blocks (Q4_0 ... Q8_1). In the 4/5-bit types byte j of qs holds element j in
// its low nibble and element j + 16 in its high nibble. Formulas and float/int intermediate types
// follow ggml's dequantize_row_* exactly; reordering any of them changes the last bit.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

// Q4_0 (18 bytes): f16 d, qs[16]. value = (nibble - 8) * d.
void dequantizeQ4_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q4_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (int j = 0; j < 16; ++j) {
            const int lo = (qs[j] & 0x0F) - 8;
            const int hi = (qs[j] >> 4) - 8;
            dst[j] = float(lo) * d;
            dst[j + 16] = float(hi) * d;
        }
    }
}

// Q4_1 (20 bytes): f16 d, f16 m, qs[16]. value = nibble * d + m.
void dequantizeQ4_1(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q4_1;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const float m = loadF16(src + B::m);
        const std::uint8_t* qs = src + B::qs;
        for (int j = 0; j < 16; ++j) {
            const int lo = qs[j] & 0x0F;
            const int hi = qs[j] >> 4;
            dst[j] = float(lo) * d + m;
            dst[j + 16] = float(hi) * d + m;
        }
    }
}

// Q5_0 (22 bytes): f16 d, qh (u32: bit j = 5th bit of element j), qs[16].
// value = (5-bit q - 16) * d.
void dequantizeQ5_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q5_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const std::uint32_t qh = loadLe<std::uint32_t>(src + B::qh);
        const std::uint8_t* qs = src + B::qs;
        for (int j = 0; j < 16; ++j) {
            const int hiBitLo = int((qh >> j) & 1u) << 4;
            const int hiBitHi = int((qh >> (j + 16)) & 1u) << 4;
            const int lo = ((qs[j] & 0x0F) | hiBitLo) - 16;
            const int hi = ((qs[j] >> 4) | hiBitHi) - 16;
            dst[j] = float(lo) * d;
            dst[j + 16] = float(hi) * d;
        }
    }
}

// Q5_1 (24 bytes): f16 d, f16 m, qh (u32), qs[16]. value = 5-bit q * d + m.
void dequantizeQ5_1(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q5_1;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const float m = loadF16(src + B::m);
        const std::uint32_t qh = loadLe<std::uint32_t>(src + B::qh);
        const std::uint8_t* qs = src + B::qs;
        for (int j = 0; j < 16; ++j) {
            const int hiBitLo = int((qh >> j) & 1u) << 4;
            const int hiBitHi = int((qh >> (j + 16)) & 1u) << 4;
            const int lo = (qs[j] & 0x0F) | hiBitLo;
            const int hi = (qs[j] >> 4) | hiBitHi;
            dst[j] = float(lo) * d + m;
            dst[j + 16] = float(hi) * d + m;
        }
    }
}

// Q8_0 (34 bytes): f16 d, int8 qs[32]. value = q * d.
void dequantizeQ8_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q8_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (std::size_t j = 0; j < B::elements; ++j) {
            dst[j] = float(static_cast<std::int8_t>(qs[j])) * d;
        }
    }
}

// Q8_1 (36 bytes): f16 d, f16 s (= d * sum of qs, ignored), int8 qs[32]. value = q * d.
// ggml has no to_float for this internal type; the fixtures define it as f32(d) * q.
void dequantizeQ8_1(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q8_1;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (std::size_t j = 0; j < B::elements; ++j) {
            dst[j] = float(static_cast<std::int8_t>(qs[j])) * d;
        }
    }
}

}  // namespace gguf::kernels
