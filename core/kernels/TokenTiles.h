#pragma once
// How the integer kernels pass the tokens over a block of weights: a fixed number at a time, so
// that each tile's sums stay in registers (a template argument), and then the remainder in one
// smaller tile.

#include <cstdint>
#include <type_traits>
#include <utility>

namespace gguf::qdot {

// Tokens [first, first + count) of a product's activations.
struct TokenSpan {
    std::int64_t first = 0;
    std::int64_t count = 0;
};

// tile(std::integral_constant<int, T>{}, first) for the tokens of `span`: T = PerTile while that
// many are left, then once with T = what is left (1 .. PerTile - 1).
template <int PerTile, typename Tile>
void overTokenTiles(TokenSpan span, Tile&& tile)
{
    const std::int64_t end = span.first + span.count;
    std::int64_t t = span.first;
    for (; t + PerTile <= end; t += PerTile)
        tile(std::integral_constant<int, PerTile>{}, t);
    [&]<int... I>(std::integer_sequence<int, I...>) {
        ((end - t == I + 1 ? (tile(std::integral_constant<int, I + 1>{}, t), 0) : 0), ...);
    }(std::make_integer_sequence<int, PerTile - 1>{});
}

}  // namespace gguf::qdot
