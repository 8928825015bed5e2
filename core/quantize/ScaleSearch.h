#pragma once
// The scale searches of ggml's k-quant reference quantizers (ggml-quants.c: make_qx_quants,
// make_q3_quants, make_qkx2_quants). Each picks a scale (and min) for one small group of values
// and the integer levels L that go with it. They are float algorithms whose every comparison
// decides bytes of output, so each expression keeps ggml's operand order and single precision.

#include <cstdint>

namespace gguf::quantize {

// Symmetric levels in [0, 2*nmax) for x / scale, searching scales near nmax/max that maximise
// the x^2-weighted fit (ggml's make_qx_quants with rmse_type 1 and no importance weights, the
// only form the reference quantizers use). Returns the scale; L[i] holds level + nmax.
float makeSymmetricLevels(int n, int nmax, const float* x, std::int8_t* L);

// Symmetric 3-bit style levels refined one element at a time (ggml's make_q3_quants with
// do_rmse = true). Returns the scale; L[i] holds level + nmax.
float makeRefinedSymmetricLevels(int n, int nmax, const float* x, std::int8_t* L);

// Asymmetric levels in [0, nmax] with a min (ggml's make_qkx2_quants): tries nstep + 1 scales
// around nmax / (max - min) and keeps the one with the least weighted error (absolute error when
// `useMad`, else squared). Returns the scale; *minOut receives the positive offset to subtract.
// `scratch` holds n bytes.
float makeAsymmetricLevels(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* minOut,
                           std::uint8_t* scratch, float rmin, float rdelta, int nstep, bool useMad);

}  // namespace gguf::quantize
