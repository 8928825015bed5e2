#include "quantize/GridNeighbours.h"

#include "kernels/KernelIsa.h"

#include <cfloat>

namespace gguf::quantize {

const float kOddLevelValues[8] = {1.0f, 3.0f, 5.0f, 7.0f, 9.0f, 11.0f, 13.0f, 15.0f};

#if GGUFX_X86_KERNELS
using BestNeighbourFn = int (*)(const GridTables&, int, const float*, const float*, float, const float*);
BestNeighbourFn bestGridNeighbourAvx2();  // GridNeighboursAvx2.cpp, built with -mavx2
#endif

int bestGridNeighbourScalar(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale,
                            const float* levelValues)
{
    const NeighbourList& list = t.listOf(mapValue);
    const int elements = t.elements;
    const int levels = t.levels;
    float terms[8 * 8];  // terms[8 i + l]: element i at level l
    for (int i = 0; i < elements; ++i)
        for (int l = 0; l < levels; ++l) {
            const float diff = scale * levelValues[l] - xval[i];
            terms[8 * i + l] = weight[i] * diff * diff;
        }
    float bestD2 = FLT_MAX;
    int best = -1;
    const int bits = t.levelBits;
    const unsigned mask = (1u << bits) - 1;
    const std::uint16_t* packed = t.neighbourLevels.data() + list.blocks;
    for (std::uint32_t j = 0; j < list.count; ++j) {
        float d2 = 0.0f;
        for (int i = 0; i < elements; ++i)
            d2 += terms[8 * i + int((packed[j] >> (bits * i)) & mask)];
        if (d2 < bestD2) {
            bestD2 = d2;
            best = int(j);
        }
    }
    return t.neighbours[list.first + std::uint32_t(best < 0 ? 0 : best)];
}

int bestGridNeighbour(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale,
                      const float* levelValues)
{
#if GGUFX_X86_KERNELS
    static const BestNeighbourFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? bestGridNeighbourAvx2() : nullptr;
    if (chosen)
        return chosen(t, mapValue, xval, weight, scale, levelValues);
#endif
    return bestGridNeighbourScalar(t, mapValue, xval, weight, scale, levelValues);
}

}  // namespace gguf::quantize
