#pragma once
// The pass's matrix products. Activations are row-major [tokens, features]; weights row-major
// [rows, columns] as ggml stores them. By default they are summed in ggml-cpu's own order
// (kernels/LaneProduct.h) on the pass's executor; OpenBLAS serves the float and double modes.

#include "core/forward/ActivationRounding.h"

#include <cstdint>

namespace gguf {

struct WeightMatrix;
class TaskExecutor;

// How a product's sums are accumulated. Lanes (the default) sums each output in 8 float lanes
// as ggml-cpu's f32 kernels do (LaneProduct.h), with blocked AVX-512 / AVX2 kernels: as fast as
// a tuned GEMM, and the same order as llama.cpp's, so the pass stays within 1e-4 of it. Float
// is cblas_sgemm, whose summation order is OpenBLAS's (at some positions the next steps amplify
// that past 1e-4). Double converts both operands to double (the weights a block of rows at a
// time) for cblas_dgemm and rounds the result to float once: the slow, exact mode, whose output
// depends on its inputs alone. Columns that are not a multiple of 8 sum in double in Lanes mode.
enum class Accumulation { Lanes, Float, Double };

// y[t, r] = sum_c x[t, c] * W[r, c] for `tokens` rows of x (row stride `columns`) and the
// `rows` x `columns` matrix at `weights`; y has row stride `yStride` (>= rows). The inputs are
// first rounded as `rounding` says (llama.cpp's treatment of activations, ActivationRounding.h).
// The lane sums run on `executor` (null: the calling thread alone).
void multiplyWeights(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns,
                     ActivationRounding rounding, Accumulation accumulation, float* y, std::int64_t yStride, TaskExecutor* executor);

// The same with a whole WeightMatrix (its first slice), y with row stride `yStride` (0 =
// weight.rows), on the weight's executor; a weight with an integer product multiplies its
// stored blocks as llama.cpp does. The product is then multiplied by the weight's companion
// scale (WeightMatrix::outputScale), as llama.cpp's build_lora_mm does.
void multiplyWeights(const float* x, std::int64_t tokens, const WeightMatrix& weight, Accumulation accumulation, float* y,
                     std::int64_t yStride = 0);

// y[t, r] *= weight.outputScale for `tokens` rows of y (row stride yStride, 0 = weight.rows):
// for a product computed without multiplyWeights.
void applyOutputScale(const WeightMatrix& weight, std::int64_t tokens, float* y, std::int64_t yStride = 0);

}  // namespace gguf
