#pragma once
// The neighbour search of ggml's grid quantizers (iq2_find_best_neighbour,
// iq3_find_best_neighbour, iq1_find_best_neighbour2): among the grid entries listed for an
// off-grid point, the first with the least weighted squared distance
// sum_i w[i] (scale q[i] - x[i])^2, summed in element order.
//
// ggml computes every term of every candidate. A term depends only on the element and its level,
// so here each of the elements x levels terms is computed once, with ggml's operations in ggml's
// order (diff = scale q - x; w diff diff), and a candidate's distance is the sum of its terms in
// element order: the same floats, the same first-wins choice. The AVX2 form scores the 8
// candidates of a block (GridTables.h) at once, looking terms up with an in-register permute.
// The earlier AVX2 attempt (commit cd7c64d, dropped in 35355d0 as 1.2-2.7x slower) built each
// block lane by lane from the grid entries (eight scalar stores reloaded as one vector, which
// stalls store forwarding), still did ggml's full arithmetic per candidate, walked every lane
// in scalar code afterwards, and left lists under 8 entries (most of IQ3's) to the scalar loop.

#include "core/quantize/GridTables.h"

namespace gguf::quantize {

// The grid entry of the best neighbour of the off-grid map value `mapValue` (< 0); the first
// neighbour when every distance is NaN (ggml asserts there). levelValues[l] is the element value
// of level l (2l+1 for IQ2/IQ3, -1/0/1 plus a shift for IQ1).
int bestGridNeighbour(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale,
                      const float* levelValues);

// The scalar form regardless of the CPU (for the test comparing it with the dispatched one).
int bestGridNeighbourScalar(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale,
                            const float* levelValues);

// The element values 2l+1 of levels 0..7 (IQ2 uses the first 3).
extern const float kOddLevelValues[8];

}  // namespace gguf::quantize
