#pragma once
// How the integer kernels pass the tokens over a block of weights: a fixed number at a time, so
// that each tile's sums stay in registers (a template argument), and then the remainder in one
// smaller tile.

#include <cstdint>
#include <type_traits>
#include <utility>

namespace gguf::qdot {

// tile(std::integral_constant<int, T>{}, first) for tokens [0, tokens): T = PerTile while that
// many are left, then once with T = what is left (1 .. PerTile - 1).
template <int PerTile, typename Tile>
void overTokenTiles(std::int64_t tokens, Tile&& tile)
{
    std::int64_t t = 0;
    for (; t + PerTile <= tokens; t += PerTile)
        tile(std::integral_constant<int, PerTile>{}, t);
    [&]<int... I>(std::integer_sequence<int, I...>) {
        ((tokens - t == I + 1 ? (tile(std::integral_constant<int, I + 1>{}, t), 0) : 0), ...);
    }(std::make_integer_sequence<int, PerTile - 1>{});
}

}  // namespace gguf::qdot
