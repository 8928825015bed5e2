#pragma once
// The lookup tables ggml's grid quantizers search (ggml-quants.c: iq2xs_init_impl,
// iq3xs_init_impl), rebuilt from the codebooks the kernels decode with, so both sides use
// the same grid order. Per grid:
// - grid: each entry's elements as 2l+1 (l = level index 0..2; iq1: value + 1), one byte each;
// - map: for every packed index u (2 bits per element for the 8-element grids, 3 bits for the
//   4-element IQ3 grids) the grid entry with exactly those levels, or, for u off the grid,
//   -(start + 1) where neighbours[start] = n and neighbours[start + 1 .. start + n] are the
//   grid entries at the `nwant` smallest distances from u, ordered by (distance, index) as
//   ggml's qsort with its total order leaves them.
// Built once, on first use, thread-safely.

#include <cstdint>
#include <vector>

namespace gguf::quantize {

struct GridTables {
    std::vector<std::uint64_t> grid;  // 8 bytes per entry (IQ3 grids use the low 4)
    std::vector<int> map;
    std::vector<std::uint16_t> neighbours;
};

enum class GridKind { IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, IQ3_XXS, IQ3_S };

const GridTables& gridTables(GridKind kind);

}  // namespace gguf::quantize
