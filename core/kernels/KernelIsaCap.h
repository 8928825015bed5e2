#pragma once
// GGUFX_KERNELS (KernelIsa.h) over the kernels outside the type table's three: the integer
// products and the f32 / f16 lane products (QuantizedDot.h, LaneProduct.h, LanePanel.h) have
// AVX-512 bodies besides their AVX2 ones. They take the AVX-512 bodies only without a cap and
// the AVX2 bodies only under a cap of avx2 (or none), so that GGUFX_KERNELS=avx2 runs and
// measures on an AVX-512 machine what an AVX2-only machine runs.

namespace gguf {

// False when GGUFX_KERNELS names one of scalar, sse4.1, avx2 (any other value, avx512 among
// them, caps nothing); decided once per process.
bool kernelIsaAllowsAvx512();

// What the products run here: "avx512" when this CPU has AVX-512 (F, BW, VL) and nothing caps
// it, else preferredKernelIsa()'s name. The benches print it.
const char* activeKernelIsaName();

}  // namespace gguf
