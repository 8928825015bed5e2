#pragma once
// The vector kernels of QuantizedDot.h (QuantizedDotBodies.inc with AVX2 or AVX-512 VNNI on
// 256-bit registers; Q4KProductAvx512.cpp, Q6KProductAvx512.cpp, LegacyProductAvx512.cpp on
// 512-bit ones): the orders of GgmlDot.h they compute for many rows and tokens at once, each
// with the bits of its scalar kernel.

#include "core/kernels/QuantizedDot.h"

#include <cstdint>

namespace gguf::qdot {

enum class VectorDot {
    Q8_0Lanes,  // ggmldot::q8_0
    Q4_0Lanes,  // ggmldot::q4_0
    Q4_0Chain,  // ggmldot::q4_0x8
    Q4_KLanes,  // ggmldot::q4_K
    Q4_KGemv,   // ggmldot::q4_Kx8Gemv
    Q4_KGemm,   // ggmldot::q4_Kx8Gemm
    Q6_KLanes,  // ggmldot::q6_K
};

// Rows [0, rows) (`rowBytes` apart from `weights`) x the tokens of `span` into y.
using VectorRowsFn = void (*)(VectorDot dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                              TokenSpan span, float* y, std::int64_t yStride);

#if GGUFX_X86_KERNELS
void dotRowsAvx2(VectorDot dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                 TokenSpan span, float* y, std::int64_t yStride);
void dotRowsAvx512(VectorDot dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                   TokenSpan span, float* y, std::int64_t yStride);
void quantizeRowsQ8KAvx512(const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out);
#endif

}  // namespace gguf::qdot
