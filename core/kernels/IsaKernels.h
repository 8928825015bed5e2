#pragma once
// The SIMD variants of the dequantization kernels (x86-64: SSE4.1 and AVX2 + F16C), one function
// per type and instruction set. Same contract as the scalar kernels in ScalarKernels.h, bit for bit;
// only their speed differs. The type table (GgmlType.cpp) lists them per type and picks the
// best one this CPU runs (KernelIsa.h). Types missing from the list (i64) have no vector
// kernel: no SSE/AVX2 instruction converts int64 to float exactly, so they stay scalar.
//
// A call that writes kKernelStreamingBytes (KernelIsa.h) or more uses non-temporal stores (see
// simd/Streaming.inc); smaller calls leave their output in cache for the caller.

#include "core/kernels/KernelIsa.h"

#include <cstddef>
#include <cstdint>

// X(Name): Name is both the kernel suffix (dequantizeName) and the blocks:: layout.
#define GGUFX_SIMD_KERNEL_LIST(X) \
    X(F32) X(F16) X(BF16) X(F64) X(I8) X(I16) X(I32) \
    X(Q4_0) X(Q4_1) X(Q5_0) X(Q5_1) X(Q8_0) X(Q8_1) \
    X(Q2_K) X(Q3_K) X(Q4_K) X(Q5_K) X(Q6_K) X(Q8_K) \
    X(IQ1_S) X(IQ1_M) X(IQ2_XXS) X(IQ2_XS) X(IQ2_S) X(IQ3_XXS) X(IQ3_S) X(IQ4_NL) X(IQ4_XS) \
    X(TQ1_0) X(TQ2_0) X(MXFP4) X(NVFP4) X(Q1_0) X(Q2_0)

namespace gguf::kernels {

#if GGUFX_X86_KERNELS
#define GGUFX_DECLARE_SIMD_KERNEL(Name) void dequantize##Name(const std::uint8_t* src, float* dst, std::size_t blockCount);
namespace sse41 {
GGUFX_SIMD_KERNEL_LIST(GGUFX_DECLARE_SIMD_KERNEL)
}
namespace avx2 {
GGUFX_SIMD_KERNEL_LIST(GGUFX_DECLARE_SIMD_KERNEL)
}
#undef GGUFX_DECLARE_SIMD_KERNEL
#endif

}  // namespace gguf::kernels
