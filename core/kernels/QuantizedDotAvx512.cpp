// The integer products (QuantizedDot.h) with AVX-512 VNNI on 256-bit registers (AVX-512 VL):
// each sum of four byte products is one vpdpbusd. Built with -mavx2 -mfma -mf16c -mavx512f
// -mavx512bw -mavx512vl -mavx512vnni (core/CMakeLists.txt); called only where the CPU has them.

#if defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__FMA__) && defined(__F16C__)
#define QDOT_NAMESPACE avx512
#define QDOT_VNNI 1
#include "core/kernels/QuantizedDotBodies.inc"

namespace gguf::qdot {
// Q4KProductAvx512.cpp, Q6KProductAvx512.cpp and LegacyProductAvx512.cpp: Q4_K_8x8, Q6_K, and
// Q8_0 and Q4_0 on 512-bit registers.
void repackedQ4KRowsAvx512(const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x, TokenSpan span,
                           float* y, std::int64_t yStride);
void q6KRowsAvx512(const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x, TokenSpan span, float* y,
                   std::int64_t yStride);
void legacyRowsAvx512(VectorDot dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                      TokenSpan span, float* y, std::int64_t yStride);

void dotRowsAvx512(VectorDot dot, PrepareRowFn prepare, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
                   const Q8Activations& x, TokenSpan span, float* y, std::int64_t yStride)
{
    switch (dot) {
    case VectorDot::Q4_KGemv:
        repackedQ4KRowsAvx512(weights, rowBytes, rows, x, span, y, yStride);
        return;
    case VectorDot::Q6_KLanes:
        q6KRowsAvx512(weights, rowBytes, rows, x, span, y, yStride);
        return;
    case VectorDot::Q8_0Lanes:
    case VectorDot::Q4_0Lanes:
        legacyRowsAvx512(dot, weights, rowBytes, rows, x, span, y, yStride);
        return;
    case VectorDot::Q4_KLanes:
    case VectorDot::Q4_KGemm:
    case VectorDot::Q4_0Chain:
    case VectorDot::Q5_KLanes:
    case VectorDot::Q5_0Lanes:
    case VectorDot::Q4_1Lanes:
    case VectorDot::Q5_1Lanes:
    case VectorDot::Q2_KLanes:
    case VectorDot::Lanes:
    case VectorDot::Chain:
        avx512::dotRows(dot, prepare, weights, rowBytes, rows, x, span, y, yStride);
        return;
    }
}
}  // namespace gguf::qdot
#endif
