#pragma once
// llama.cpp's CPU products of one stored weight row with one row of quantized activations, as
// ggml-cpu (80fb11a) computes them in the x86 build with AVX2, FMA and F16C (its haswell
// variant): each kernel is named after the ggml function whose arithmetic it repeats. The
// integer sums are exact, so only the floats need ggml's order, and each kernel takes ggml's
// float steps one by one: which values share an accumulator lane, where a block's scale
// multiplies, which terms are fused multiply-adds, how the lanes are added at the end. The type
// table (GgmlType.h, CpuProduct) names the kernels of each type; QuantizedDot.h runs them.

#include "core/kernels/TokenTiles.h"

#include <cstdint>

namespace gguf {

struct Q8Activations;

// Row `row` (one weight row as stored, x.columns values) times each token t of `span` of x,
// into y[t * yStride]. A kernel reads each block of the row once for up to 8 tokens.
using RowDotFn = void (*)(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

namespace ggmldot {

// ---- ggml_vec_dot_<type>_q8_0 / _q8_1: mul_mat's kernel when nothing faster takes the
// matrix, and mul_mat_id's for experts that are not repacked. ------------------------------------
void q1_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q2_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q4_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q4_1(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q5_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q5_1(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q8_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq4_nl(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void mxfp4(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void nvfp4(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

// ---- ggml_vec_dot_<type>_q8_K --------------------------------------------------------------
void q2_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q3_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q4_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q5_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q6_K(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void tq1_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void tq2_0(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq2_xxs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq2_xs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq2_s(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq3_xxs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq3_s(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq1_s(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq1_m(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq4_xs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

// ---- tinyBLAS (llamafile_sgemm), mul_mat of two tokens or more: 8 float lanes per output, one
// fused multiply-add per 32-value block. Q4_0, Q5_0 and Q8_0 sum as their vec_dot does. --------
void iq4_nlLanes(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

// ---- repack.cpp's 8x8 interleaved layouts (gemv: a token alone, gemm: four at a time) --------
// q4_0, iq4_nl and mxfp4 x8, gemv and gemm alike: one float chain per output, one fused
// multiply-add per 32-value block of the block's whole integer dot.
void q4_0x8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq4_nlx8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void mxfp4x8(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
// q4_K x8: two chains (scales, minimums), one step per super-block (gemv) or per 64 values (gemm).
void q4_Kx8Gemv(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void q4_Kx8Gemm(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

// ---- iqp.cpp's panel of the grid IQ types (mul_mat of 8 tokens or more): each super-block as
// integer weights times 16-value integer scales times one float, summed in integers, then one
// fused multiply-add per super-block. ---------------------------------------------------------
void iq2_xxsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq2_xsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq2_sPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq3_xxsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq3_sPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq1_sPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq1_mPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);
void iq4_xsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

}  // namespace ggmldot

}  // namespace gguf
