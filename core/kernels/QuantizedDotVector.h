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
    Q5_KLanes,  // ggmldot::q5_K
    Q5_0Lanes,  // ggmldot::q5_0
    Q4_1Lanes,  // ggmldot::q4_1
    Q5_1Lanes,  // ggmldot::q5_1
    Q2_KLanes,  // ggmldot::q2_K (rows made ready by a PrepareRowFn)
    Lanes,      // ggmldot::q3_K and the IQ2 / IQ3 / IQ4_XS vec_dot (a PrepareRowFn)
    Chain,      // the IQ panels (a PrepareRowFn)
};

// A K-quant or IQ row made ready for many tokens: each weight (Q6_K: unsigned, its offset 32
// apart) times its sub-block scale as int16, every 32 in Q8Activations::wide's order (so 32-bit
// lane l of a pair product holds values 4l .. 4l + 3, ggml's lanes), and per super-block the
// float scales.
struct PreparedRow {
    std::int16_t* weights;  // [columns]
    float* d;               // [columns / 256]; Chain: d times the type's factor
    float* dmin;            // Q4_K, Q5_K, Q2_K: [columns / 256]
    std::int16_t* mins;     // Q4_K / Q5_K: the minimums [columns / 32]; Q2_K: [columns / 16]; Q6_K: the scales [columns / 16]
    float factor = 1.0f;    // Lanes: what the lane sum is multiplied by at the end
};

// Fills `out` from a stored row of `columns` values (a multiple of 256). Types whose weights the
// vector bodies do not read themselves pass one (GgmlDotK.cpp, GgmlDotIQ.cpp: their scalar readers).
using PrepareRowFn = void (*)(const std::uint8_t* row, std::int64_t columns, PreparedRow& out);

}  // namespace gguf::qdot

namespace gguf::ggmldot {

// The rows of GgmlDot.h's kernels that the vector bodies do not read themselves, made ready for
// them by the same scalar readers (GgmlDotK.cpp, GgmlDotIQ.cpp): weights times scales as int16,
// d (panels: d times the type's factor), Q2_K's minimums per 16 values, the lanes' factor.
void prepareQ2_K(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareQ3_K(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq2_xxs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq2_xs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq2_s(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq3_xxs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq3_s(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq4_xs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq2_xxsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq2_xsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq2_sPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq3_xxsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq3_sPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq1_sPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq1_mPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);
void prepareIq4_xsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out);

}  // namespace gguf::ggmldot

namespace gguf::qdot {

#if GGUFX_X86_KERNELS
// Rows [0, rows) (`rowBytes` apart from `weights`) x the tokens of `span` into y; `prepare` for
// Q2_KLanes, Lanes and Chain.
void dotRowsAvx2(VectorDot dot, PrepareRowFn prepare, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
                 const Q8Activations& x, TokenSpan span, float* y, std::int64_t yStride);
void dotRowsAvx512(VectorDot dot, PrepareRowFn prepare, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
                   const Q8Activations& x, TokenSpan span, float* y, std::int64_t yStride);
void quantizeRowsQ8KAvx512(const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out);
#endif

}  // namespace gguf::qdot
