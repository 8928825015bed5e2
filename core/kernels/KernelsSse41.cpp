// The SSE4.1 dequantization kernels. Only this file is compiled with -msse4.1
// (core/CMakeLists.txt); KernelIsa.cpp checks the CPU before the type table hands them out.
//
// The kernel bodies are shared with the other instruction sets (simd/*.inc) and written against
// the eight-float vocabulary of simd/VecSse41.inc. Everything but the exported dequantize*
// functions has internal linkage, and nothing here instantiates a standard-library template: an
// inline function with external linkage compiled with these flags could be chosen by the linker
// for the generic code too, which would then fault on a CPU without them.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/IsaKernels.h"

#include <immintrin.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gguf::kernels::sse41 {

namespace {
#include "core/kernels/simd/VecSse41.inc"
#include "core/kernels/simd/AllBodies.inc"
}  // namespace

#define GGUFX_DEFINE_SIMD_KERNEL(Name) \
    void dequantize##Name(const std::uint8_t* src, float* dst, std::size_t blockCount) \
    { \
        dequantizeDispatched<blocks::Name, cached::body##Name, streaming::body##Name>(src, dst, blockCount); \
    }
GGUFX_SIMD_KERNEL_LIST(GGUFX_DEFINE_SIMD_KERNEL)
#undef GGUFX_DEFINE_SIMD_KERNEL

}  // namespace gguf::kernels::sse41
