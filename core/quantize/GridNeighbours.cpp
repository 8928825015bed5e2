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
    const std::uint8_t* block = t.neighbourLevels.data() + list.blocks;
    for (std::uint32_t b = 0; b < list.count; b += 8, block += 8 * elements) {
        const std::uint32_t lanes = list.count - b < 8 ? list.count - b : 8;
        for (std::uint32_t lane = 0; lane < lanes; ++lane) {
            float d2 = 0.0f;
            for (int i = 0; i < elements; ++i)
                d2 += terms[8 * i + block[8 * i + int(lane)]];
            if (d2 < bestD2) {
                bestD2 = d2;
                best = int(b + lane);
            }
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
