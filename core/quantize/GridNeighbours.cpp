#include "core/quantize/GridNeighbours.h"

#include "core/kernels/KernelIsa.h"

#include <cfloat>

namespace gguf::quantize {

const float kOddLevelValues[8] = {1.0f, 3.0f, 5.0f, 7.0f, 9.0f, 11.0f, 13.0f, 15.0f};

#if GGUFX_X86_KERNELS
using BestNeighbourFn = int (*)(const GridTables&, int, const float*, const float*, float, const float*);
BestNeighbourFn bestGridNeighbourAvx2();  // GridNeighboursAvx2.cpp, built with -mavx2
#endif

namespace {

// Elements, levels and bits per level fixed at compile time (8, 3, 2 for IQ1/IQ2; 4, 8, 3 for IQ3).
template <int Elements, int Levels, int Bits>
int scalarBest(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale, const float* levelValues)
{
    const NeighbourList& list = t.listOf(mapValue);
    float terms[Elements * Levels];  // terms[Levels i + l]: element i at level l
    for (int i = 0; i < Elements; ++i)
        for (int l = 0; l < Levels; ++l) {
            const float diff = scale * levelValues[l] - xval[i];
            terms[Levels * i + l] = weight[i] * diff * diff;
        }
    float bestD2 = FLT_MAX;
    int best = -1;
    const std::uint16_t* packed = t.neighbourLevels.data() + list.blocks;
    for (std::uint32_t j = 0; j < list.count; ++j) {
        const unsigned levels = packed[j];
        float d2 = 0.0f;
        for (int i = 0; i < Elements; ++i)
            d2 += terms[Levels * i + int((levels >> (Bits * i)) & ((1u << Bits) - 1))];
        if (d2 < bestD2) {
            bestD2 = d2;
            best = int(j);
        }
    }
    return t.neighbours[list.first + std::uint32_t(best < 0 ? 0 : best)];
}

}  // namespace

int bestGridNeighbourScalar(const GridTables& t, int mapValue, const float* xval, const float* weight, float scale,
                            const float* levelValues)
{
    if (t.elements == 4)
        return scalarBest<4, 8, 3>(t, mapValue, xval, weight, scale, levelValues);
    return scalarBest<8, 3, 2>(t, mapValue, xval, weight, scale, levelValues);
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
