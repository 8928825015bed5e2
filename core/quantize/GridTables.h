#pragma once
// The lookup tables ggml's grid quantizers search (ggml-quants.c: iq2xs_init_impl,
// iq3xs_init_impl), rebuilt from the codebooks the kernels decode with, so both sides use
// the same grid order. Per grid:
// - grid: each entry's elements as 2l+1 (l = level index 0..2; iq1: value + 1), one byte each;
// - map: for every packed index u (2 bits per element for the 8-element grids, 3 bits for the
//   4-element IQ3 grids) the grid entry with exactly those levels, or, for u off the grid,
//   -(list + 1) where lists[list] names the grid entries at the `nwant` smallest distances
//   from u, ordered by (distance, index) as ggml's qsort with its total order leaves them;
// - the neighbour lists themselves: their grid indices (`neighbours`), and their levels packed as
//   map indices are (levelBits per element), in blocks of 8 candidates so a search can score 8 at
//   once; a block's unused lanes repeat its list's last candidate, which can never win a
//   first-wins search. (Two bytes a candidate, not one per element: a quarter of the memory, so
//   more of the lists of the 1024- and 2048-entry grids stay in cache.)
// Built once, on first use, thread-safely.

#include <cstdint>
#include <vector>

namespace gguf::quantize {

struct NeighbourList {
    std::uint32_t first;   // into GridTables::neighbours
    std::uint32_t blocks;  // into GridTables::neighbourLevels
    std::uint32_t count;
};

struct GridTables {
    int elements = 0;                 // 8 (IQ1/IQ2) or 4 (IQ3)
    int levels = 0;                   // 3 (IQ1/IQ2) or 8 (IQ3)
    int levelBits = 0;                // 2 (IQ1/IQ2) or 3 (IQ3)
    std::vector<std::uint64_t> grid;  // 8 bytes per entry (IQ3 grids use the low 4)
    std::vector<std::uint64_t> gridLevels;  // the same entries as level indices l, one byte each
    std::vector<int> map;
    std::vector<NeighbourList> lists;
    std::vector<std::uint16_t> neighbours;
    std::vector<std::uint16_t> neighbourLevels;  // 8 packed candidates per block

    const NeighbourList& listOf(int mapValue) const { return lists[std::size_t(-mapValue - 1)]; }
};

enum class GridKind { IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, IQ3_XXS, IQ3_S };

const GridTables& gridTables(GridKind kind);

}  // namespace gguf::quantize
