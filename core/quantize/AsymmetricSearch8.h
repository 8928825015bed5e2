#pragma once
// makeAsymmetricLevels (ScaleSearch.h) for eight groups at once, one group per SIMD lane. Each
// lane runs the scalar search's exact sequence of single-precision operations over its own
// group, sums included in element order, so the results are bit-identical to eight scalar
// calls; only the groups run side by side. Q4_K and Q5_K search 8 sub-blocks of 32, Q2_K two
// sets of 8 sub-blocks of 16: the search is most of their time.
//
// Inputs are lane-interleaved: element i of group g is at x[8 * i + g] (weights alike), and
// levels come back the same way in L[8 * i + g]. scales[g] and mins[g] are what
// makeAsymmetricLevels returns and stores in *minOut.

#include <cstdint>

namespace gguf::quantize {

inline constexpr int kSearchLanes = 8;

using AsymmetricSearch8Fn = void (*)(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* scales,
                                     float* mins, float rmin, float rdelta, int nstep, bool useMad);

// makeSymmetricLevels (Q6_K's search over 16 sub-blocks of 16) for eight lane-interleaved
// groups: L[8 * i + g] gets what the scalar search stores in L[i] of group g.
using SymmetricSearch8Fn = void (*)(int n, int nmax, const float* x, std::int8_t* L, float* scales);

// The variants for this CPU (AVX2), or nullptr when it has none: then callers run the scalar
// search group by group. Follows preferredKernelIsa(), so GGUFX_KERNELS=scalar turns it off.
AsymmetricSearch8Fn asymmetricSearch8();
SymmetricSearch8Fn symmetricSearch8();
// makeRefinedSymmetricLevels (Q3_K's search), same interface.
SymmetricSearch8Fn refinedSymmetricSearch8();

// Interleaves `groups` (at most 8) groups of n values, group g starting at src + g * n; lanes
// past `groups` are filled with zeros.
void interleaveGroups(const float* src, int n, int groups, float* out);

// Its eight-group form for n a multiple of 8, by 8x8 transposes (AVX2); interleaveGroups uses it
// when the CPU has AVX2. Exposed for the test that holds it to the plain copy loop.
using Interleave8Fn = void (*)(const float* src, int n, float* out);
Interleave8Fn interleave8Fast();  // nullptr without AVX2
void interleaveGroupsScalar(const float* src, int n, int groups, float* out);

}  // namespace gguf::quantize
