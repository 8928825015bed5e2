#pragma once
// The pass's matrix products, through OpenBLAS (all cores). Activations are row-major
// [tokens, features]; weights row-major [rows, columns] as ggml stores them.

#include "forward/ActivationRounding.h"

#include <cstdint>

namespace gguf {

struct WeightMatrix;

// How a product's sums are accumulated. Float is cblas_sgemm. Double converts both operands to
// double (the weights a block of rows at a time) for cblas_dgemm and rounds the result to
// float once: the pass's output then depends on its inputs, not on a BLAS kernel's summation
// order, which at some positions the next steps amplify past 1e-4 (README, forward pass).
enum class Accumulation { Float, Double };

// y[t, r] = sum_c x[t, c] * W[r, c] for `tokens` rows of x (row stride `columns`) and the
// `rows` x `columns` matrix at `weights`; y has row stride `yStride` (>= rows). The inputs are
// first rounded as `rounding` says (llama.cpp's treatment of activations, ActivationRounding.h).
void multiplyWeights(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns,
                     ActivationRounding rounding, Accumulation accumulation, float* y, std::int64_t yStride);

// The same with a whole WeightMatrix (its first slice), y with row stride `yStride` (0 =
// weight.rows); with the weight's block minimums, ggml's q8_1 block-sum term is reproduced.
void multiplyWeights(const float* x, std::int64_t tokens, const WeightMatrix& weight, Accumulation accumulation, float* y,
                     std::int64_t yStride = 0);

}  // namespace gguf
