// The integer products (QuantizedDot.h) with AVX2: byte products summed by vpmaddubsw and
// vpmaddwd. Built with -mavx2 -mfma -mf16c (core/CMakeLists.txt); called only where the CPU has them.

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define QDOT_NAMESPACE avx2
#include "core/kernels/QuantizedDotBodies.inc"

namespace gguf::qdot {
void dotRowsAvx2(VectorDot dot, PrepareRowFn prepare, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
                 const Q8Activations& x, TokenSpan span, float* y, std::int64_t yStride)
{
    avx2::dotRows(dot, prepare, weights, rowBytes, rows, x, span, y, yStride);
}
}  // namespace gguf::qdot
#endif
