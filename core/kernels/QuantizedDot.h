#pragma once
// Products of quantized weight rows with quantized activations in integers, as ggml-cpu does
// on x86: the activations are quantized to q8_0 (Q8_0 / Q4_0 weights) or q8_K (K-quants), each
// block's products of integers are summed exactly, and the floats are combined in the order of
// ggml's AVX2 vec_dot kernels:
//
//   8 float lanes per output; lane l takes, for every block in turn, fma(d, float(s_l), lane l),
//   where d = (activation scale) * (weight scale) in float and s_l is the block's integer sum
//   over values 4l .. 4l + 3 of each 32 (times the sub-block scale for K-quants, less the
//   Q6_K offset 32); the lanes end summed ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)).
//   Q4_K also keeps 4 lanes of its minimums term, fma(-dA * dmin, m_2k q_2k + m_2k+1 q_2k+1,
//   lane k) with q_j the sum of the activations of sub-block j, added last as
//   (0 + 2) + (1 + 3).
//
// Integer sums are exact, so the scalar reference, the AVX2 kernel and the AVX-512 VNNI kernels
// give the same bits; and since the order is ggml's, they give llama.cpp's products. With
// AVX-512, Q4_K_8x8 and Q6_K lay out 32 rows at a time and Q8_0 and Q4_0 16, 16 rows to a
// 512-bit register, so that one instruction adds to 16 outputs' integer sums
// (Q4KProductAvx512.cpp, Q6KProductAvx512.cpp, LegacyProductAvx512.cpp); the q8_K activations
// are quantized 16 values at a time (Q8KActivationsAvx512.cpp).

#include <cstdint>
#include <optional>
#include <vector>

namespace gguf {

// How activations are quantized for a product (ggml's vec_dot_type of the weight).
enum class Q8Kind { Q8_0, Q8_K };

// Activations quantized as ggml-cpu quantizes them on x86 (ActivationRounding.h describes the
// arithmetic): every value an integer in [-127, 127] times its block's scale.
struct Q8Activations {
    Q8Kind kind = Q8Kind::Q8_0;
    std::int64_t tokens = 0;
    std::int64_t columns = 0;
    std::vector<std::int8_t> values;  // [tokens, columns]
    std::vector<float> scales;        // [tokens, columns / block]: q8_0 its f16 d as f32, q8_K its f32 d
    std::vector<std::int16_t> sums;   // q8_K only: [tokens, columns / 16], the sum of each 16 values
    // q8_K only, for the vector kernels: the values as int16 with each 32 reordered as
    // 0 1 4 5 8 9 ... 28 29 then 2 3 6 7 ... 30 31 (so that a pairwise multiply-add puts values
    // 4l .. 4l + 3 into lane l, wideOrder), and the sum of each 32 values.
    std::vector<std::int16_t> wide;       // [tokens, columns]
    std::vector<std::int16_t> pairSums;   // [tokens, columns / 32]

    static constexpr std::int64_t blockSize(Q8Kind kind) { return kind == Q8Kind::Q8_0 ? 32 : 256; }
    const std::int8_t* valuesOf(std::int64_t token) const { return values.data() + token * columns; }
    const float* scalesOf(std::int64_t token) const { return scales.data() + token * (columns / blockSize(kind)); }
    const std::int16_t* sumsOf(std::int64_t token) const { return sums.data() + token * (columns / 16); }
    const std::int16_t* wideOf(std::int64_t token) const { return wide.data() + token * columns; }
    const std::int16_t* pairSumsOf(std::int64_t token) const { return pairSums.data() + token * (columns / 32); }
};

// The value (0..31) at position `position` of a 32-value group in the order of Q8Activations::wide.
constexpr int wideOrder(int position)
{
    return position < 16 ? 4 * (position / 2) + position % 2 : 4 * ((position - 16) / 2) + 2 + position % 2;
}

// Quantizes `tokens` rows of `columns` floats (a multiple of the block size) into `out`.
void quantizeActivations(Q8Kind kind, const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out);

// The weight types with an integer product, and the activations each takes. Q4_K_8x8 is Q4_K
// summed as ggml's repacked q4_K_8x8 kernels sum it (llama.cpp repacks Q4_K matrices whose row
// count is a multiple of 8 when its CPU backend has AVX2): one float chain per output,
//
//   acc += float(sum over the super-block of scale * q * a) * (dW * dA)         (fma)
//   accMin += float(sum over its sub-blocks of min * (the sub-block's activation sum)) * (dminW * dA)
//   y = acc - accMin.
enum class QuantizedWeight { Q4_0, Q8_0, Q4_K, Q4_K_8x8, Q6_K };
// `repackedRows`: the tensor is one llama.cpp repacks (Q4_K with a multiple of 8 rows).
std::optional<QuantizedWeight> quantizedWeightOfType(std::uint32_t typeId, bool repackedRows);
Q8Kind activationKindOf(QuantizedWeight type);
std::int64_t bytesPerRow(QuantizedWeight type, std::int64_t columns);

// y[t * yStride + r] = row r of the weights (rows [0, rows), stored one after another from
// `weights`, each of x.columns values) times token t of x, for every token.
void quantizedDotRows(QuantizedWeight type, const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x, float* y,
                      std::int64_t yStride);

// The same with a chosen kernel, for tests: 0 scalar reference, 1 AVX2, 2 AVX-512 VNNI. A
// kernel the CPU lacks falls back to the next one down.
void quantizedDotRowsWith(int kernel, QuantizedWeight type, const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x,
                          float* y, std::int64_t yStride);

// Which kernel quantizedDotRows uses on this CPU (as above).
int quantizedDotKernel();

}  // namespace gguf
