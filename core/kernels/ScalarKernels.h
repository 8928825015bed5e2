#pragma once
// Every dequantization kernel and big-endian block swap, one per ggml type. The type table in
// GgmlType.cpp wires them to type ids; nothing else should need to name them. These scalar
// kernels are the portable reference; IsaKernels.h declares their SIMD variants.
//
// dequantize*: DequantizeBlocksFn contract (GgmlType.h): `blockCount` little-endian blocks at
// `src` -> `blockCount * elements` floats at `dst`, bit-identical to ggml's to_float (for the
// integer and f64 types, to a plain C cast to float).
// swap*: SwapBlockFn contract: one block, in place, big-endian -> little-endian.

#include <cstddef>
#include <cstdint>

namespace gguf::kernels {

// ---- plain types (KernelsPlain.cpp) --------------------------------------------------------
void dequantizeF32(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeF16(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeBF16(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeF64(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeI8(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeI16(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeI32(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeI64(const std::uint8_t* src, float* dst, std::size_t blockCount);

// ---- legacy 32-element blocks (KernelsLegacy.cpp) ------------------------------------------
void dequantizeQ4_0(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ4_1(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ5_0(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ5_1(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ8_0(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ8_1(const std::uint8_t* src, float* dst, std::size_t blockCount);

// ---- K-quants (KernelsK.cpp) ---------------------------------------------------------------
void dequantizeQ2_K(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ3_K(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ4_K(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ5_K(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ6_K(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ8_K(const std::uint8_t* src, float* dst, std::size_t blockCount);

// ---- IQ types (KernelsIQ1.cpp, KernelsIQ2.cpp, KernelsIQ3.cpp, KernelsIQ4.cpp) ------------
void dequantizeIQ1_S(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ1_M(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ2_XXS(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ2_XS(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ2_S(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ3_XXS(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ3_S(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ4_NL(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeIQ4_XS(const std::uint8_t* src, float* dst, std::size_t blockCount);

// ---- ternary, 1/2-bit and FP4 (KernelsTernaryFp4.cpp) --------------------------------------
void dequantizeTQ1_0(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeTQ2_0(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeMXFP4(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeNVFP4(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ1_0(const std::uint8_t* src, float* dst, std::size_t blockCount);
void dequantizeQ2_0(const std::uint8_t* src, float* dst, std::size_t blockCount);

// ---- big-endian -> little-endian (BlockSwap.cpp) -------------------------------------------
// Plain types: the whole element.
void swapElement16(std::uint8_t* block);  // f16, bf16, i16
void swapElement32(std::uint8_t* block);  // f32, i32
void swapElement64(std::uint8_t* block);  // f64, i64
// Blocks whose only multi-byte field is an f16 `d` at byte 0 (q4_0, q5_0, q8_0, iq2_xxs, iq2_xs,
// iq2_s, iq3_xxs, iq3_s, iq1_s, iq4_nl, iq4_xs, q1_0, q2_0).
void swapLeadingF16(std::uint8_t* block);
// Blocks starting with two f16 fields: d and m (q4_1, q5_1), d and s (q8_1), d and dmin (q4_K, q5_K).
void swapLeadingF16Pair(std::uint8_t* block);
void swapBlockQ2_K(std::uint8_t* block);   // d, dmin at the end
void swapBlockQ3_K(std::uint8_t* block);   // d at the end
void swapBlockQ6_K(std::uint8_t* block);   // d at the end
void swapBlockQ8_K(std::uint8_t* block);   // f32 d and the 16 int16 bsums
void swapBlockTQ1_0(std::uint8_t* block);  // d at the end
void swapBlockTQ2_0(std::uint8_t* block);  // d at the end

}  // namespace gguf::kernels
