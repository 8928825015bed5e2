#include "quantize/GridNeighbours.h"

#include <cfloat>

namespace gguf::quantize {

namespace {

// Continues a first-wins search over neighbours [from, count) from the state (bestD2, best).
void scalarScan(const GridTables& t, const std::uint16_t* neighbours, int from, int count, int elements, const float* xval,
                const float* weight, float scale, float& bestD2, int& best)
{
    for (int j = from; j < count; ++j) {
        const auto* pg = reinterpret_cast<const std::int8_t*>(&t.grid[neighbours[j]]);
        float d2 = 0.0f;
        for (int i = 0; i < elements; ++i) {
            const float diff = scale * float(pg[i]) - xval[i];
            d2 += weight[i] * diff * diff;
        }
        if (d2 < bestD2) {
            bestD2 = d2;
            best = neighbours[j];
        }
    }
}

int scalarBest(const GridTables& t, const std::uint16_t* neighbours, int count, int elements, const float* xval,
               const float* weight, float scale)
{
    float bestD2 = FLT_MAX;
    int best = -1;
    scalarScan(t, neighbours, 0, count, elements, xval, weight, scale, bestD2, best);
    return best;
}

}  // namespace

int bestGridNeighbour(const GridTables& t, const std::uint16_t* neighbours, int count, int elements, const float* xval,
                      const float* weight, float scale)
{
    return scalarBest(t, neighbours, count, elements, xval, weight, scale);
}

}  // namespace gguf::quantize
