#pragma once
// The last step of Q3_K's quantizer (QuantizeK16.cpp) in AVX2, bit-identical to the scalar loop:
// each sub-block j whose decoded scale subScale[j] (f16 d times the 6-bit scale) is nonzero has
// its 16 levels re-rounded as clamp(nearestInt(x / subScale[j]), -4, 3) + 4 (IEEE division and
// ggml's nearest_int bit trick, so the same result for every input, NaN included); the others
// keep the search's levels in L. Then the 3-bit levels are split into hmask (bit 2: element j
// sets bit j / 32 of hmask[j % 32]) and the 2-bit qs layout.

#include <cstdint>

namespace gguf::quantize {

using Q3KLevelsFn = void (*)(const float* x, const float* subScale, std::int8_t* L, std::uint8_t* hmask, std::uint8_t* qs);

// The scalar form (QuantizeK16.cpp): the fallback, and what tests hold the AVX2 one to.
void q3KLevelsScalar(const float* x, const float* subScale, std::int8_t* L, std::uint8_t* hmask, std::uint8_t* qs);

// nullptr when the CPU (or GGUFX_KERNELS) rules AVX2 out.
Q3KLevelsFn q3KLevelsAvx2();

}  // namespace gguf::quantize
