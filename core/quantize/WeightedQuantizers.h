#pragma once
// Importance-weighted quantizers: one row of `n` values (a multiple of the type's block) with
// its `n` importance weights (llama-quantize's imatrix row, ggml's quant_weights) to `n /
// blockSize` blocks. Each reproduces ggml's quantize_row_<type>_impl byte for byte, which is
// what ggml_quantize_chunk runs when quant_weights is given. They take whole rows because some
// (Q4_0, Q4_1, Q5_0, Q5_1) weigh by the variance of the whole row. Each is its type's
// TypeTraits::quantizeWeighted (core/types/GgmlType.cpp).

#include <cstddef>
#include <cstdint>

namespace gguf::quantize {

void quantizeRowQ4_0Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ4_1Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ5_0Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ5_1Weighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

void quantizeRowQ2_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ3_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ4_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ5_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowQ6_KWeighted(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

// IQ4_NL / IQ4_XS (non-linear 4-bit levels): ggml quantizes them with the same search with or
// without weights (weights null: x^2), so these take weights == nullptr too.
void quantizeRowIQ4_NL(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowIQ4_XS(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

// IQ2_XXS / IQ2_XS: grid quantizers that need importance weights (ggml refuses them without).
void quantizeRowIQ2_XXS(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowIQ2_XS(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
// IQ2_S: weights optional (nullptr: 0.25 sigma2 + x^2, as ggml).
void quantizeRowIQ2_S(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

// IQ3_XXS / IQ3_S: grid quantizers, weights optional (nullptr: x^2, as ggml).
void quantizeRowIQ3_XXS(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowIQ3_S(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

// IQ1_S needs importance weights; IQ1_M takes them optionally (nullptr: x^2).
void quantizeRowIQ1_S(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);
void quantizeRowIQ1_M(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

}  // namespace gguf::quantize
