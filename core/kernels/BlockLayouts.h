#pragma once
// Byte layouts of ggml's blocks (ggml-common.h), as offsets into one block. Kernels, swap
// functions and the type table all read sizes from here, so a layout is written down once.
// Every multi-byte field is little-endian in a file; `d`, `m`, `dmin`, `s` are f16 unless noted.
// `bytes` is computed from the fields, and GgmlType.cpp checks it against ggml's block sizes.

#include <cstddef>

namespace gguf::blocks {

inline constexpr std::size_t QK_K = 256;  // elements per K-quant / IQ super-block

// ---- plain element types (one "block" = one element) --------------------------------------
struct F32  { static constexpr std::size_t elements = 1, bytes = 4; };
struct F16  { static constexpr std::size_t elements = 1, bytes = 2; };
struct BF16 { static constexpr std::size_t elements = 1, bytes = 2; };
struct F64  { static constexpr std::size_t elements = 1, bytes = 8; };
struct I8   { static constexpr std::size_t elements = 1, bytes = 1; };
struct I16  { static constexpr std::size_t elements = 1, bytes = 2; };
struct I32  { static constexpr std::size_t elements = 1, bytes = 4; };
struct I64  { static constexpr std::size_t elements = 1, bytes = 8; };

// ---- legacy 32-element blocks -------------------------------------------------------------
struct Q4_0 { static constexpr std::size_t elements = 32, d = 0, qs = 2, bytes = qs + 16; };
struct Q4_1 { static constexpr std::size_t elements = 32, d = 0, m = 2, qs = 4, bytes = qs + 16; };
struct Q5_0 { static constexpr std::size_t elements = 32, d = 0, qh = 2, qs = 6, bytes = qs + 16; };
struct Q5_1 { static constexpr std::size_t elements = 32, d = 0, m = 2, qh = 4, qs = 8, bytes = qs + 16; };
struct Q8_0 { static constexpr std::size_t elements = 32, d = 0, qs = 2, bytes = qs + 32; };
struct Q8_1 { static constexpr std::size_t elements = 32, d = 0, s = 2, qs = 4, bytes = qs + 32; };

// ---- K-quants (256-element super-blocks) --------------------------------------------------
struct Q2_K { static constexpr std::size_t elements = QK_K, scales = 0, qs = 16, d = 80, dmin = 82, bytes = 84; };
struct Q3_K { static constexpr std::size_t elements = QK_K, hmask = 0, qs = 32, scales = 96, d = 108, bytes = 110; };
struct Q4_K { static constexpr std::size_t elements = QK_K, d = 0, dmin = 2, scales = 4, qs = 16, bytes = qs + 128; };
struct Q5_K { static constexpr std::size_t elements = QK_K, d = 0, dmin = 2, scales = 4, qh = 16, qs = 48, bytes = qs + 128; };
struct Q6_K { static constexpr std::size_t elements = QK_K, ql = 0, qh = 128, scales = 192, d = 208, bytes = 210; };
// d is f32 here; bsums are 16 int16 sums of groups of 16 quants (unused for dequantization).
struct Q8_K { static constexpr std::size_t elements = QK_K, d = 0, qs = 4, bsums = 260, bytes = bsums + 32; };

// ---- IQ types -----------------------------------------------------------------------------
// qs holds 32 little-endian u16 (IQ2_XXS: read as 16 u32 pairs).
struct IQ2_XXS { static constexpr std::size_t elements = QK_K, d = 0, qs = 2, bytes = qs + 64; };
struct IQ2_XS  { static constexpr std::size_t elements = QK_K, d = 0, qs = 2, scales = 66, bytes = scales + 8; };
// qs: 32 grid-index bytes, then 32 sign bytes.
struct IQ2_S   { static constexpr std::size_t elements = QK_K, d = 0, qs = 2, qh = 66, scales = 74, bytes = scales + 8; };
// qs: 64 grid-index bytes, then 8 u32 of packed scale (top 4 bits) and 4x7 sign bits.
struct IQ3_XXS { static constexpr std::size_t elements = QK_K, d = 0, qs = 2, bytes = qs + 96; };
struct IQ3_S   { static constexpr std::size_t elements = QK_K, d = 0, qs = 2, qh = 66, signs = 74, scales = 106, bytes = scales + 4; };
// qh holds 8 little-endian u16.
struct IQ1_S   { static constexpr std::size_t elements = QK_K, d = 0, qs = 2, qh = 34, bytes = qh + 16; };
// No d field: the f16 super-block scale is spread over the top nibbles of the four u16 `scales`.
struct IQ1_M   { static constexpr std::size_t elements = QK_K, qs = 0, qh = 32, scales = 48, bytes = scales + 8; };
struct IQ4_NL  { static constexpr std::size_t elements = 32, d = 0, qs = 2, bytes = qs + 16; };
// scalesH is a u16 (high 2 bits of 8 scales).
struct IQ4_XS  { static constexpr std::size_t elements = QK_K, d = 0, scalesH = 2, scalesL = 4, qs = 8, bytes = qs + 128; };

// ---- ternary, 1/2-bit and FP4 -------------------------------------------------------------
// qs: 48 bytes of 5 base-3 digits each, qh: 4 bytes of 4 digits each.
struct TQ1_0 { static constexpr std::size_t elements = QK_K, qs = 0, qh = 48, d = 52, bytes = 54; };
struct TQ2_0 { static constexpr std::size_t elements = QK_K, qs = 0, d = 64, bytes = 66; };
// e is one E8M0 byte.
struct MXFP4 { static constexpr std::size_t elements = 32, e = 0, qs = 1, bytes = qs + 16; };
// d: four UE4M3 bytes, one per 16-element sub-block.
struct NVFP4 { static constexpr std::size_t elements = 64, subBlock = 16, d = 0, qs = 4, bytes = qs + 32; };
struct Q1_0  { static constexpr std::size_t elements = 128, d = 0, qs = 2, bytes = qs + 16; };
struct Q2_0  { static constexpr std::size_t elements = 64, d = 0, qs = 2, bytes = qs + 16; };

}  // namespace gguf::blocks
