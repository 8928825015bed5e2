#pragma once
// ggml's best_index_mxfp4 (the first of the 16 doubled E2M1 values v with the least |v e - x|)
// for `n` values at once (n a multiple of 8): eight values per AVX2 instruction, the candidates
// tried in ggml's order with its strict comparison, so the same indices. nullptr without AVX2.

#include <cstdint>

namespace gguf::quantize {

using Fp4IndicesFn = void (*)(const float* x, int n, float e, std::uint8_t* indices);

Fp4IndicesFn fp4IndicesAvx2();

}  // namespace gguf::quantize
