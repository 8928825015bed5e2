#pragma once
// Matrix products summed as ggml-cpu's f32 kernels sum them (tinyBLAS with 8-float vectors, and
// ggml_vec_dot_f32 on AVX2): every output keeps 8 float lanes, lane q takes
// fma(w[l + q], x[l + q], lane) for l = 0, 8, 16, ... in order, and the lanes are then added as
// ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)). The order is fixed per output, so the result does not
// depend on the instruction set, the blocking or the thread count: the AVX-512 and AVX2 kernels
// and the portable loop give the same bits.
//
// The fast kernels block the work as a tuned GEMM does: a slice of the columns of the
// activations stays in L2 while rows of weights stream past it, and each output's 8 lanes are
// carried from one slice to the next, so the lane order above is kept.

#include <cstdint>
#include <vector>

namespace gguf {

// y[t * yStride + r] for rows r in [rowBegin, rowEnd) of the row-major `weights` (row stride
// `columns`) against the `tokens` rows of x (row stride `columns`); `columns` a multiple of 8.
// `scratch` is reused between calls (the carried lanes).
void laneProductRows(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                     std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch);

// The same with a chosen kernel, for tests: 0 portable loop, 1 AVX2, 2 AVX-512. A kernel the CPU
// lacks falls back to the next one down.
void laneProductRowsWith(int kernel, const float* x, std::int64_t tokens, const float* weights, std::int64_t columns,
                         std::int64_t rowBegin, std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch);

// Which kernel laneProductRows uses on this CPU (as above).
int laneProductKernel();

}  // namespace gguf
