#include "core/quantize/AsymmetricSearch8.h"

#include "core/kernels/KernelIsa.h"

#include <algorithm>

namespace gguf::quantize {

#if GGUFX_X86_KERNELS
AsymmetricSearch8Fn asymmetricSearch8Avx2();  // AsymmetricSearch8Avx2.cpp, built with -mavx2
SymmetricSearch8Fn symmetricSearch8Avx2();
SymmetricSearch8Fn refinedSymmetricSearch8Avx2();
Interleave8Fn interleave8Avx2();
#endif

SymmetricSearch8Fn refinedSymmetricSearch8()
{
#if GGUFX_X86_KERNELS
    static const SymmetricSearch8Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? refinedSymmetricSearch8Avx2() : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

SymmetricSearch8Fn symmetricSearch8()
{
#if GGUFX_X86_KERNELS
    static const SymmetricSearch8Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? symmetricSearch8Avx2() : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

AsymmetricSearch8Fn asymmetricSearch8()
{
#if GGUFX_X86_KERNELS
    static const AsymmetricSearch8Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? asymmetricSearch8Avx2() : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

Interleave8Fn interleave8Fast()
{
#if GGUFX_X86_KERNELS
    static const Interleave8Fn chosen = preferredKernelIsa() == KernelIsa::Avx2 ? interleave8Avx2() : nullptr;
    return chosen;
#else
    return nullptr;
#endif
}

void interleaveGroups(const float* src, int n, int groups, float* out)
{
    if (groups == kSearchLanes && n % 8 == 0) {
        if (const Interleave8Fn fast = interleave8Fast())
            return fast(src, n, out);
    }
    interleaveGroupsScalar(src, n, groups, out);
}

void interleaveGroupsScalar(const float* src, int n, int groups, float* out)
{
    for (int i = 0; i < n; ++i) {
        for (int g = 0; g < kSearchLanes; ++g)
            out[kSearchLanes * i + g] = g < groups ? src[g * n + i] : 0.0f;
    }
}

}  // namespace gguf::quantize
