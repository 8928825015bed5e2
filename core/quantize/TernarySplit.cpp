#include "quantize/TernarySplit.h"

#include "kernels/KernelIsa.h"

#include <cfloat>

namespace gguf::quantize {

#if GGUFX_X86_KERNELS
using TernarySplitFn = TernarySplit (*)(const float*, const float*, int, float, const float*, const float*);
TernarySplitFn bestTernarySplitAvx2();  // TernarySplitAvx2.cpp, built with -mavx2
#endif

TernarySplit bestTernarySplitScalar(const float* sumx, const float* sumw, int n, float scale, const float* plus,
                                    const float* minus)
{
    TernarySplit best;
    best.scale = scale;
    float bestScore = -FLT_MAX;
    for (int i1 = 0; i1 <= n; ++i1) {
        for (int i2 = i1; i2 <= n; ++i2) {
            for (const int shift : {1, -1}) {
                const float* v = shift == 1 ? plus : minus;
                const float sumqx = (sumx[i1] - sumx[0]) * v[0] + (sumx[i2] - sumx[i1]) * v[1] + (sumx[n] - sumx[i2]) * v[2];
                const float sumq2 = (sumw[i1] - sumw[0]) * v[0] * v[0] + (sumw[i2] - sumw[i1]) * v[1] * v[1]
                                  + (sumw[n] - sumw[i2]) * v[2] * v[2];
                if (sumq2 > 0.0f && sumqx * sumqx > bestScore * sumq2) {
                    best.scale = sumqx / sumq2;
                    bestScore = best.scale * sumqx;
                    best.i1 = i1;
                    best.i2 = i2;
                    best.shift = shift;
                }
            }
        }
    }
    return best;
}

TernarySplit bestTernarySplit(const float* sumx, const float* sumw, int n, float scale, const float* plus, const float* minus)
{
#if GGUFX_X86_KERNELS
    static const TernarySplitFn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? bestTernarySplitAvx2() : nullptr;
    if (chosen)
        return chosen(sumx, sumw, n, scale, plus, minus);
#endif
    return bestTernarySplitScalar(sumx, sumw, n, scale, plus, minus);
}

}  // namespace gguf::quantize
