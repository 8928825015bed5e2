#pragma once
// Scalar copies of the vector math ggml-cpu uses on x86 with AVX2 and FMA (llama.cpp's release
// builds, and the one that made the oracle files): its polynomial expf (ggml_v_expf), SiLU
// (ggml_v_silu) and the 8-lane grouping of its softmax sums. libm's expf differs from it by an
// ulp here and there, which is harmless in f32 but moves a value across a q8_0 rounding
// boundary now and then; with quantized activations one such step is 1e-3 of the logits.

#include <cstdint>

namespace gguf {

// ggml_v_expf of one lane (AVX2 + FMA), bit for bit.
float ggmlExpf(float x);

// ggml_v_silu of one lane: x / (1 + ggml_v_expf(0 - x)).
float ggmlSilu(float x);

// ggml_vec_soft_max_f32: y[i] = exp(x[i] - max); returns the sum as ggml forms it: groups of 8
// (ggml_v_expf, summed in float as its horizontal add does) added in double, then a scalar
// expf tail for the last n % 8 values.
double ggmlExpAndSum(const float* x, float* y, std::int64_t n, float max);

}  // namespace gguf
