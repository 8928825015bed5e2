#pragma once
// The neighbour search of ggml's IQ2 / IQ3 quantizers (iq2_find_best_neighbour,
// iq3_find_best_neighbour): among a list of grid entries, the first with the least weighted
// squared distance sum_i w[i] (scale q[i] - x[i])^2, each sum in element order. (An AVX2 form
// scoring eight neighbours per instruction measured 1.2-2.7x slower on the bench and was dropped.)

#include "quantize/GridTables.h"

#include <cstdint>

namespace gguf::quantize {

// The grid entry of the best of `count` neighbours (indices into t.grid), -1 when every distance
// is NaN. `elements` is 8 (IQ2) or 4 (IQ3).
int bestGridNeighbour(const GridTables& t, const std::uint16_t* neighbours, int count, int elements, const float* xval,
                      const float* weight, float scale);

}  // namespace gguf::quantize
