#pragma once
// AVX2 forms of the Q8_0, Q4_0, Q4_1, Q5_0 and Q5_1 quantizers (QuantizeLegacy.cpp), bit-identical to them: the
// block's maximum is order-independent for finite values, and each element's rounding is the
// scalar one, eight at a time. A block holding NaN or infinity goes to `scalarBlocks` (the
// scalar quantizer), whose first-wins NaN handling has no cheap vector form.

#include <cstddef>
#include <cstdint>

namespace gguf::quantize {

using BlocksFn = void (*)(const float* src, std::uint8_t* dst, std::size_t blockCount);
using LegacyAvx2Fn = void (*)(const float* src, std::uint8_t* dst, std::size_t blockCount, BlocksFn scalarBlocks);

struct LegacyAvx2 {
    LegacyAvx2Fn q8_0 = nullptr;
    LegacyAvx2Fn q4_0 = nullptr;
    LegacyAvx2Fn q4_1 = nullptr;
    LegacyAvx2Fn q5_0 = nullptr;
    LegacyAvx2Fn q5_1 = nullptr;
};

// The scalar bodies (QuantizeLegacy.cpp): the fallback, and what tests hold the AVX2 forms to.
void quantizeQ8_0Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ4_0Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ4_1Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ5_0Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount);
void quantizeQ5_1Scalar(const float* src, std::uint8_t* dst, std::size_t blockCount);

// Empty when the CPU (or GGUFX_KERNELS) rules AVX2 out.
const LegacyAvx2& legacyAvx2();

}  // namespace gguf::quantize
