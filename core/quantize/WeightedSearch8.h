#pragma once
// makeWeightedAsymmetricLevels (WeightedSearch.h, ggml's make_qkx3_quants with weights) for
// eight groups at once, one group per SIMD lane, bit-identical to eight scalar calls: each lane
// runs the scalar search's exact sequence of single-precision operations, sums in element
// order. Inputs and levels are lane-interleaved as in AsymmetricSearch8.h (element i of group g
// at x[8 * i + g]); groups of at most 32 values.

#include <cstdint>

namespace gguf::quantize {

using WeightedAsymmetricSearch8Fn = void (*)(int n, int nmax, const float* x, const float* weights, std::uint8_t* L,
                                             float* scales, float* mins, float rmin, float rdelta, int nstep);

// makeWeightedSymmetricLevels (make_qx_quants with weights) for eight lane-interleaved groups
// of at most 32: L[8 * i + g] and scales[g] get what the scalar search gives group g.
using WeightedSymmetricSearch8Fn = void (*)(int n, int nmax, const float* x, const float* weights, std::int8_t* L, float* scales);

// The AVX2 variants, or nullptr without AVX2 (or with GGUFX_KERNELS below avx2).
WeightedAsymmetricSearch8Fn weightedAsymmetricSearch8();
WeightedSymmetricSearch8Fn weightedSymmetricSearch8();

}  // namespace gguf::quantize
