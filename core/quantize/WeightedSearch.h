#pragma once
// The scale searches ggml's importance-weighted quantizers use (ggml-quants.c: make_qx_quants
// with caller weights, make_qkx3_quants, make_qp_quants). Like ScaleSearch.h they are float
// algorithms whose every comparison decides output bytes, so each keeps ggml's operand order,
// single precision and integer conversions.

#include <cstdint>

namespace gguf::quantize {

// Symmetric levels for x / scale in [-nmax, nmax), fit by weighted least squares over 19
// candidate scales near nmax / max (make_qx_quants, rmse_type 1, weights `w`). Returns the
// scale; L[i] holds level + nmax.
float makeWeightedSymmetricLevels(int n, int nmax, const float* x, const float* w, std::int8_t* L);

// Asymmetric levels in [0, nmax] with a min, least-squares refit over nstep + 1 candidate
// scales (make_qkx3_quants with weights, squared error). Returns the scale; *minOut receives
// the positive offset to subtract. `scratch` holds n bytes.
float makeWeightedAsymmetricLevels(int n, int nmax, const float* x, const float* w, std::uint8_t* L, float* minOut,
                                   std::uint8_t* scratch, float rmin, float rdelta, int nstep);

// Non-negative levels in [0, nmax] for non-negative x (make_qp_quants): how a super-block's
// sub-block scales and mins are quantized when importance weights are given. Returns the scale.
float makePositiveLevels(int n, int nmax, const float* x, const float* w, std::uint8_t* L);

}  // namespace gguf::quantize
