#pragma once
// Requests the next chunk of a weight matrix's stored rows while the current one is laid out,
// for the integer kernels that lay out 16 or 32 rows at a time (Q4KProductAvx512.cpp,
// Q6KProductAvx512.cpp, LegacyProductAvx512.cpp). A chunk is one contiguous run of bytes, but
// the layout reads it a block of each row at a time, and the hardware prefetchers stop at every
// 4 KB page: the first read of each page waited on memory, and on MoE layers (every expert read
// once per pass, a few tokens each) that waiting was most of the layout's time. Measured on
// Qwen3-MoE's layout (best of 4, last position, 1 / 2 threads): 586-598 / 924-1006 tok/s
// without, 706-714 / 1109-1159 with the lines requested into L1 (into L2: 658-662 / 1041-1067).

#include <immintrin.h>

#include "core/kernels/TokenTiles.h"

#include <cstdint>

namespace gguf::qdot {

class ChunkPrefetch {
public:
    // The bytes [begin, end) are requested, in order, a few lines per step(). Addresses past the
    // mapping are harmless: a prefetch never faults.
    ChunkPrefetch(const std::uint8_t* begin, const std::uint8_t* end) : m_next(begin), m_end(end) {}

    // A block's step: a block of 144 to 210 bytes is read per row and step, so three 64-byte
    // lines a step keep ahead of a next chunk as large as this one (the 16 rows' small Q8_0 and
    // Q4_0 blocks take as many steps as cover their bytes).
    void step()
    {
        for (int line = 0; line < 3 && m_next < m_end; ++line, m_next += 64)
            _mm_prefetch(reinterpret_cast<const char*>(m_next), _MM_HINT_T0);
    }

private:
    const std::uint8_t* m_next;
    const std::uint8_t* m_end;
};

// The loop of those kernels: `rows` stored rows (`rowBytes` each) ChunkRows at a time, each
// chunk laid out by prepare(first row's bytes, count, next) while the next chunk's bytes are
// requested, then the tokens passed over it: tile(std::integral_constant<int, T>, first row,
// count, first token), TokensPerTile at a time (overTokenTiles).
template <int ChunkRows, int TokensPerTile, typename Prepare, typename Tile>
void overRowChunks(const std::uint8_t* weights, std::int64_t rows, std::int64_t rowBytes, TokenSpan tokens, Prepare&& prepare,
                   Tile&& tile)
{
    for (std::int64_t first = 0; first < rows; first += ChunkRows) {
        const int count = static_cast<int>(rows - first < ChunkRows ? rows - first : ChunkRows);
        const std::uint8_t* end = weights + (first + count) * rowBytes;
        ChunkPrefetch next(end, end + ChunkRows * rowBytes);
        prepare(weights + first * rowBytes, count, next);
        overTokenTiles<TokensPerTile>(tokens, [&](auto size, std::int64_t t) { tile(size, first, count, t); });
    }
}

}  // namespace gguf::qdot
