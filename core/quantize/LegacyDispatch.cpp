#include "core/quantize/LegacyAvx2.h"

#include "core/kernels/KernelIsa.h"

namespace gguf::quantize {

#if GGUFX_X86_KERNELS
LegacyAvx2 legacyAvx2Kernels();  // LegacyAvx2.cpp, built with -mavx2
#endif

const LegacyAvx2& legacyAvx2()
{
#if GGUFX_X86_KERNELS
    static const LegacyAvx2 chosen = preferredKernelIsa() == KernelIsa::Avx2 ? legacyAvx2Kernels() : LegacyAvx2{};
#else
    static const LegacyAvx2 chosen{};
#endif
    return chosen;
}

}  // namespace gguf::quantize
