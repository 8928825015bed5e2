#include "core/quantize/GridTables.h"

#include "core/kernels/Codebooks.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>

namespace gguf::quantize {

namespace {

struct GridSpec {
    int size;
    int elements;    // 8 (IQ1/IQ2) or 4 (IQ3)
    int levelBits;   // bits per element in the packed index: 2 or 3
    int mapSize;     // ggml's kmap_size
    int nwant;       // distinct nearest distances kept per off-grid point
};

GridSpec specOf(GridKind kind)
{
    switch (kind) {
    case GridKind::IQ2_XXS: return {256, 8, 2, 43692, 2};
    case GridKind::IQ2_XS: return {512, 8, 2, 43692, 2};
    case GridKind::IQ2_S: return {1024, 8, 2, 43692, 1};
    case GridKind::IQ1_S: return {2048, 8, 2, 43692, 3};
    case GridKind::IQ3_XXS: return {256, 4, 3, 4096, 2};
    case GridKind::IQ3_S: return {512, 4, 3, 4096, 3};
    }
    std::abort();
}

// The level index of one stored grid byte.
int levelOf(GridKind kind, std::uint8_t byte)
{
    if (kind == GridKind::IQ1_S)
        return static_cast<std::int8_t>(byte) + 1;  // -1, 0, 1
    if (kind == GridKind::IQ3_S) {  // stores 2l+1 itself: 1, 3, ..., 15
        if (byte % 2 == 0 || byte > 15)
            std::abort();
        return (byte - 1) / 2;
    }
    if (kind == GridKind::IQ3_XXS) {
        // the IQ3_XXS grid stores the decoded magnitudes 4, 12, ..., 52, 62
        if (byte == 62)
            return 7;
        if (byte < 4 || byte > 52 || (byte - 4) % 8 != 0)
            std::abort();
        return (byte - 4) / 8;
    }
    switch (byte) {  // IQ2 grids store the decoded magnitudes 8, 25, 43
    case 0x08: return 0;
    case 0x19: return 1;
    case 0x2b: return 2;
    default: std::abort();
    }
}

std::uint64_t codebookEntry(GridKind kind, int k)
{
    switch (kind) {
    case GridKind::IQ2_XXS: return codebooks::iq2xxs_grid[k];
    case GridKind::IQ2_XS: return codebooks::iq2xs_grid[k];
    case GridKind::IQ2_S: return codebooks::iq2s_grid[k];
    case GridKind::IQ1_S: return codebooks::iq1s_grid[k];
    case GridKind::IQ3_XXS: return codebooks::iq3xxs_grid[k];
    case GridKind::IQ3_S: return codebooks::iq3s_grid[k];
    }
    std::abort();
}

GridTables build(GridKind kind)
{
    const GridSpec spec = specOf(kind);
    const int mask = (1 << spec.levelBits) - 1;
    GridTables tables;
    tables.elements = spec.elements;
    tables.levels = spec.levelBits == 2 ? 3 : 8;
    tables.levelBits = spec.levelBits;
    tables.grid.resize(static_cast<std::size_t>(spec.size));
    tables.gridLevels.resize(static_cast<std::size_t>(spec.size));
    tables.map.assign(static_cast<std::size_t>(spec.mapSize), -1);
    std::vector<std::array<std::int8_t, 8>> positions(static_cast<std::size_t>(spec.size));
    for (int k = 0; k < spec.size; ++k) {
        const std::uint64_t entry = codebookEntry(kind, k);
        std::uint64_t packed = 0;
        int index = 0;
        for (int i = 0; i < spec.elements; ++i) {
            const int l = levelOf(kind, static_cast<std::uint8_t>(entry >> (8 * i)));
            positions[std::size_t(k)][std::size_t(i)] = static_cast<std::int8_t>(2 * l + 1);
            packed |= std::uint64_t(2 * l + 1) << (8 * i);
            tables.gridLevels[std::size_t(k)] |= std::uint64_t(l) << (8 * i);
            index |= l << (spec.levelBits * i);
        }
        tables.grid[std::size_t(k)] = packed;
        tables.map[std::size_t(index)] = k;
    }
    // Off-grid points: the grid entries at the nwant smallest distinct squared distances, in
    // (distance, index) order. Distances are small integers, so one pass marks which occur and
    // a bucket pass replaces the sort; the positions are stored element-major so the distance
    // loop runs over the grid entries (vectorised), since this build runs once per process and
    // for the 2048-entry grid it was most of a small conversion's time.
    const std::size_t size = static_cast<std::size_t>(spec.size);
    std::vector<std::int16_t> columns(size * std::size_t(spec.elements));  // [i * size + j]
    for (std::size_t j = 0; j < size; ++j)
        for (int i = 0; i < spec.elements; ++i)
            columns[std::size_t(i) * size + j] = positions[j][std::size_t(i)];
    const int maxLevelDiff = 2 * mask;
    const int maxDistance = spec.elements * maxLevelDiff * maxLevelDiff;
    std::vector<std::int16_t> dist(size);
    std::vector<char> present(static_cast<std::size_t>(maxDistance + 1));
    for (int u = 0; u < spec.mapSize; ++u) {
        if (tables.map[std::size_t(u)] >= 0)
            continue;
        std::fill(dist.begin(), dist.end(), std::int16_t(0));
        for (int i = 0; i < spec.elements; ++i) {
            const auto pos = static_cast<std::int16_t>(2 * ((u >> (spec.levelBits * i)) & mask) + 1);
            const std::int16_t* column = columns.data() + std::size_t(i) * size;
            for (std::size_t j = 0; j < size; ++j) {
                const auto diff = static_cast<std::int16_t>(column[j] - pos);
                dist[j] = static_cast<std::int16_t>(dist[j] + diff * diff);
            }
        }
        std::fill(present.begin(), present.end(), char(0));
        for (std::size_t j = 0; j < size; ++j)
            present[std::size_t(dist[j])] = 1;
        std::vector<int> wanted;
        for (int d = 0; d <= maxDistance && int(wanted.size()) < spec.nwant; ++d)
            if (present[std::size_t(d)])
                wanted.push_back(d);
        NeighbourList list{static_cast<std::uint32_t>(tables.neighbours.size()),
                           static_cast<std::uint32_t>(tables.neighbourLevels.size()), 0};
        for (const int d : wanted)
            for (int j = 0; j < spec.size; ++j)
                if (dist[std::size_t(j)] == d)
                    tables.neighbours.push_back(static_cast<std::uint16_t>(j));
        list.count = static_cast<std::uint32_t>(tables.neighbours.size() - list.first);
        for (std::uint32_t b = 0; b < list.count; b += 8) {
            for (std::uint32_t lane = 0; lane < 8; ++lane) {
                const std::uint32_t j = b + lane < list.count ? b + lane : list.count - 1;
                const auto& p = positions[tables.neighbours[list.first + j]];
                unsigned packedLevels = 0;
                for (int i = 0; i < spec.elements; ++i)
                    packedLevels |= unsigned((p[std::size_t(i)] - 1) / 2) << (spec.levelBits * i);
                tables.neighbourLevels.push_back(static_cast<std::uint16_t>(packedLevels));
            }
        }
        tables.map[std::size_t(u)] = -static_cast<int>(tables.lists.size() + 1);
        tables.lists.push_back(list);
    }
    return tables;
}

}  // namespace

const GridTables& gridTables(GridKind kind)
{
    static std::once_flag once[6];
    static GridTables tables[6];
    const auto slot = static_cast<std::size_t>(kind);
    std::call_once(once[slot], [&] { tables[slot] = build(kind); });
    return tables[slot];
}

}  // namespace gguf::quantize
