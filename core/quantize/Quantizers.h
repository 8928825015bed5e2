#pragma once
// One block quantizer per type, the inverse of the matching kernel in kernels/: reads
// `blockCount * blockSize` floats from `src` and writes `blockCount` blocks (little-endian
// layout of kernels/BlockLayouts.h) to `dst`. Each reproduces ggml's quantize_row_<type>_ref
// byte for byte, which is what ggml_quantize_chunk runs when no importance matrix is given.
// Blocks are independent, so any block-aligned piece of a tensor quantizes to the same bytes as
// the whole tensor would. Each is its type's TypeTraits::quantize (core/types/GgmlType.cpp).

#include <cstddef>
#include <cstdint>

namespace gguf::quantize {

void quantizeF32(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeF16(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeBF16(const float* src, std::uint8_t* dst, std::size_t blockCount);

void quantizeQ4_0(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ4_1(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ5_0(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ5_1(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ8_0(const float* src, std::uint8_t* dst, std::size_t blockCount);

void quantizeQ2_K(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ3_K(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ4_K(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ5_K(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ6_K(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ8_K(const float* src, std::uint8_t* dst, std::size_t blockCount);

// IQ4_NL / IQ4_XS without importance: ggml_quantize_chunk's quantize_iq4_nl / quantize_iq4_xs
// (the weighted search with x^2 weights), not the simpler quantize_row_iq4_*_ref.
void quantizeIQ4_NL(const float* src, std::uint8_t* dst, std::size_t blockCount);
// quantize_row_iq4_nl_ref: one row of `n` values as ggml-cpu's from_float stores it (a copy into
// an iq4_nl KV cache), which searches fewer scales than ggml_quantize_chunk.
void quantizeRowIQ4_NLReference(const float* x, std::uint8_t* dst, std::int64_t n);
void quantizeIQ4_XS(const float* src, std::uint8_t* dst, std::size_t blockCount);

// IQ3_XXS / IQ3_S without importance: ggml's quantize_iq3_xxs / quantize_iq3_s with x^2 weights.
void quantizeIQ3_XXS(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeIQ3_S(const float* src, std::uint8_t* dst, std::size_t blockCount);
// IQ2_S without importance: ggml's quantize_iq2_s with 0.25 sigma2 + x^2 weights.
void quantizeIQ2_S(const float* src, std::uint8_t* dst, std::size_t blockCount);
// IQ1_M without importance: ggml's quantize_iq1_m with x^2 weights.
void quantizeIQ1_M(const float* src, std::uint8_t* dst, std::size_t blockCount);

void quantizeTQ1_0(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeTQ2_0(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeMXFP4(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeNVFP4(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ1_0(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ2_0(const float* src, std::uint8_t* dst, std::size_t blockCount);

}  // namespace gguf::quantize
