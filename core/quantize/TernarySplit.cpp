#include "core/quantize/TernarySplit.h"

#include "core/kernels/KernelIsa.h"

#include <cfloat>

namespace gguf::quantize {

#if GGUFX_X86_KERNELS
using TernarySplitFn = TernarySplit (*)(const float*, const float*, int, float, const float*, const float*);
TernarySplitFn bestTernarySplitAvx2();  // TernarySplitAvx2.cpp, built with -mavx2
#endif

// ggml's loop with the parts that do not depend on i2 (level -1 terms) hoisted per i1 and the
// parts that do not depend on i1 (level +1 terms) computed once per i2: each sum is still formed as
// ggml forms it, ((level -1) + (level 0)) + (level +1).
TernarySplit bestTernarySplitScalar(const float* sumx, const float* sumw, int n, float scale, const float* plus,
                                    const float* minus)
{
    constexpr int kMaxBlock = 64;
    TernarySplit best;
    best.scale = scale;
    float bestScore = -FLT_MAX;
    float tailQx[2][kMaxBlock + 1];
    float tailQ2[2][kMaxBlock + 1];
    const bool hoisted = n <= kMaxBlock;
    const float* levels[2] = {plus, minus};
    if (hoisted)
        for (int s = 0; s < 2; ++s)
            for (int i2 = 0; i2 <= n; ++i2) {
                tailQx[s][i2] = (sumx[n] - sumx[i2]) * levels[s][2];
                tailQ2[s][i2] = (sumw[n] - sumw[i2]) * levels[s][2] * levels[s][2];
            }
    for (int i1 = 0; i1 <= n; ++i1) {
        float headQx[2];
        float headQ2[2];
        for (int s = 0; s < 2; ++s) {
            headQx[s] = (sumx[i1] - sumx[0]) * levels[s][0];
            headQ2[s] = (sumw[i1] - sumw[0]) * levels[s][0] * levels[s][0];
        }
        for (int i2 = i1; i2 <= n; ++i2) {
            for (int s = 0; s < 2; ++s) {
                const float* v = levels[s];
                const float sumqx = hoisted ? headQx[s] + (sumx[i2] - sumx[i1]) * v[1] + tailQx[s][i2]
                                            : headQx[s] + (sumx[i2] - sumx[i1]) * v[1] + (sumx[n] - sumx[i2]) * v[2];
                const float sumq2 = hoisted ? headQ2[s] + (sumw[i2] - sumw[i1]) * v[1] * v[1] + tailQ2[s][i2]
                                            : headQ2[s] + (sumw[i2] - sumw[i1]) * v[1] * v[1] + (sumw[n] - sumw[i2]) * v[2] * v[2];
                if (sumq2 > 0.0f && sumqx * sumqx > bestScore * sumq2) {
                    best.scale = sumqx / sumq2;
                    bestScore = best.scale * sumqx;
                    best.i1 = i1;
                    best.i2 = i2;
                    best.shift = s == 0 ? 1 : -1;
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
