#pragma once
// The scale search of IQ4_NL / IQ4_XS (QuantizeIQ4.cpp) in AVX2, bit-identical to the scalar
// loop: for each of the 15 trial scales id = (itry + kvalues[0]) / max (itry -7 .. 7) the sums
// sumqx = sum_j w_j q_j x_j and sumq2 = sum_j w_j q_j q_j over a 32-value block, q_j the level
// nearest id * x_j. Eight trials go side by side in the lanes, each lane adding its values in
// the scalar order j = 0, 1, ... with a rounded product and a rounded add (no fused multiply-add:
// the file is built without -mfma, as ggml's quantizer is), so every sum has the scalar bits.
// The caller then picks among the trials in order, as before.

namespace gguf::quantize {

inline constexpr int kIq4Trials = 15;

using Iq4TrialSumsFn = void (*)(const float* x, const float* weight, float max, float* sumqx, float* sumq2);

// nullptr when the CPU (or GGUFX_KERNELS) rules AVX2 out.
Iq4TrialSumsFn iq4TrialSumsAvx2();

}  // namespace gguf::quantize
