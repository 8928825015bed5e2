#pragma once
// Products of quantized weight rows with quantized activations in integers, as llama.cpp's CPU
// backend computes them on x86: the activations are quantized as ggml-cpu quantizes them (the
// weight type's vec_dot_type: q8_0, q8_1 or q8_K, CpuProduct in GgmlType.h), and each output is
// one of GgmlDot.h's kernels, which repeat ggml's summation order step for step. planProduct
// picks the kernel llama.cpp would use for a product's shape (tinyBLAS, a repacked layout, the
// IQ panel, vec_dot).
//
// Integer sums are exact, so the scalar kernels and the vector ones give the same bits, and
// since the order is ggml's, they give llama.cpp's products. Most kernels have vector forms
// with AVX2 (QuantizedDotBodies.inc) and AVX-512 VNNI: Q8_0, Q4_0, Q5_0, Q4_1 and Q5_1 in
// ggml's lanes, Q4_K's vec_dot and its repacked gemv, the vec_dot of Q2_K, Q3_K, Q5_K, Q6_K,
// IQ2_*, IQ3_* and IQ4_XS, and the IQ panels (the rows of the types the vector bodies do not
// unpack themselves are read by the scalar kernels' readers, once per chunk of rows for every
// token). With AVX-512 VNNI Q4_K_8x8 and Q6_K lay out 32 rows at a time and Q8_0 and Q4_0 16,
// 16 rows to a 512-bit register, so that one instruction adds to 16 outputs' integer sums
// (Q4KProductAvx512.cpp, Q6KProductAvx512.cpp, LegacyProductAvx512.cpp); the q8_K activations
// are quantized 16 values at a time (Q8KActivationsAvx512.cpp).

#include "core/kernels/GgmlDot.h"
#include "core/kernels/TokenTiles.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gguf {

struct TypeTraits;
enum class GgmlTypeId : std::uint32_t;

// The q8 activation types (ggml's block_q8_0, block_q8_1, block_q8_K).
enum class Q8Kind { Q8_0, Q8_1, Q8_K };

// Activations quantized as ggml-cpu quantizes them on x86: every value an integer in
// [-127, 127] times its block's scale.
struct Q8Activations {
    Q8Kind kind = Q8Kind::Q8_0;
    std::int64_t tokens = 0;
    std::int64_t columns = 0;
    std::vector<std::int8_t> values;  // [tokens, columns]
    std::vector<float> scales;        // [tokens, columns / block]: q8_0 / q8_1 its f16 d as f32, q8_K its f32 d
    std::vector<float> blockSums;     // q8_1 only: [tokens, columns / 32], its f16 s = f16(d * sum(q)) as f32
    std::vector<std::int16_t> sums;   // q8_K only: [tokens, columns / 16], the sum of each 16 values (bsums)
    // q8_K only, for the vector kernels: the values as int16 with each 32 reordered as
    // 0 1 4 5 8 9 ... 28 29 then 2 3 6 7 ... 30 31 (so that a pairwise multiply-add puts values
    // 4l .. 4l + 3 into lane l, wideOrder), and the sum of each 32 values.
    std::vector<std::int16_t> wide;       // [tokens, columns]
    std::vector<std::int16_t> pairSums;   // [tokens, columns / 32]

    static constexpr std::int64_t blockSize(Q8Kind kind) { return kind == Q8Kind::Q8_K ? 256 : 32; }
    const std::int8_t* valuesOf(std::int64_t token) const { return values.data() + token * columns; }
    const float* scalesOf(std::int64_t token) const { return scales.data() + token * (columns / blockSize(kind)); }
    const float* blockSumsOf(std::int64_t token) const { return blockSums.data() + token * (columns / 32); }
    const std::int16_t* sumsOf(std::int64_t token) const { return sums.data() + token * (columns / 16); }
    const std::int16_t* wideOf(std::int64_t token) const { return wide.data() + token * columns; }
    const std::int16_t* pairSumsOf(std::int64_t token) const { return pairSums.data() + token * (columns / 32); }
};

// The value (0..31) at position `position` of a 32-value group in the order of Q8Activations::wide.
constexpr int wideOrder(int position)
{
    return position < 16 ? 4 * (position / 2) + position % 2 : 4 * ((position - 16) / 2) + 2 + position % 2;
}

// The q8 kind of a vec_dot_type (CpuProduct::activations), or nothing for the others.
std::optional<Q8Kind> q8KindOf(GgmlTypeId activations);

// Quantizes `tokens` rows of `columns` floats (a multiple of the block size) into `out`, as
// ggml-cpu's x86 from_float does: quantize_row_q8_0 / q8_1 with AVX2 (d = amax / 127 as f16,
// the multiplier 127 / amax, rounding half to even; q8_1 adds s = f16(d * sum(q))) and
// quantize_row_q8_K_ref (iscale = -127 / the value of largest magnitude, d = 1 / iscale).
void quantizeActivations(Q8Kind kind, const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out);

// What quantized activations stand for: out[t * columns + c] = scale * q (the float product),
// for the columns of whole blocks.
void dequantizeActivations(const Q8Activations& x, float* out);

// Where a product runs in llama.cpp's CPU backend, which decides its kernel.
enum class ProductKind {
    Matrix,   // mul_mat of a 2-D weight
    Batched,  // mul_mat of one matrix of a 3-D weight (per-head slices)
    Expert,   // mul_mat_id of one expert of a 3-D expert weight
};

// The kernel of each output of one product, as ggml-cpu chooses it: tokens [0, split) take
// `first` and [split, tokens) `rest`.
struct ProductPlan {
    RowDotFn first = nullptr;
    RowDotFn rest = nullptr;
    std::int64_t split = 0;
};

// The plan of a product of `tokens` activation rows with a weight of `type` whose matrix has
// `rows` rows of `columns` values; for an expert, `tokens` is the expert's own. `repackable`:
// llama.cpp gives the weight its extra buffer type (not a weight get_rows also reads). Requires
// the type's vecDot (CpuProduct); columns a multiple of its block.
ProductPlan planProduct(const TypeTraits& type, ProductKind kind, std::int64_t rows, std::int64_t columns, std::int64_t tokens,
                        bool repackable);

// y[t * yStride + r] = dot(row r, x, token t) for rows [0, rows) (`rowBytes` apart from
// `weights`) and the tokens of `span`. A vector kernel takes `dot` where one computes its order
// on this CPU, with the same bits.
void quantizedDotRows(RowDotFn dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                      qdot::TokenSpan span, float* y, std::int64_t yStride);

// The same with a chosen kernel, for tests: 0 the scalar kernel, 1 AVX2, 2 AVX-512 VNNI. A
// kernel the CPU lacks falls back to the next one down.
void quantizedDotRowsWith(int kernel, RowDotFn dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
                          const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride);

// Which kernel quantizedDotRows uses on this CPU (as above).
int quantizedDotKernel();

// Whether quantizedDotRows has a vector form of `dot` (so that a product lays out its rows for it).
bool hasVectorDot(RowDotFn dot);

}  // namespace gguf
