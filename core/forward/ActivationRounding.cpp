#include "core/forward/ActivationRounding.h"

#include "core/kernels/HalfFloat.h"
#include "core/quantize/FloatEncode.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cmath>

namespace gguf {

namespace {

// ggml's nearest_int: round half to even through the float magic number.
int nearestInt(float value)
{
    float shifted = value + 12582912.0f;
    std::int32_t bits;
    static_assert(sizeof bits == sizeof shifted);
    __builtin_memcpy(&bits, &shifted, sizeof bits);
    return (bits & 0x007fffff) - 0x00400000;
}

// ggml-cpu's quantize_row_q8_0 as built for x86 with AVX/AVX2 (llama.cpp's release builds and the
// oracle's), then dequantize: d = amax / 127 stored as f16, but the multiplier is 127 / amax (not
// 1 / d) and the rounding is half to even (_mm256_round_ps), unlike quantize_row_q8_0_ref's
// 1 / d and roundf. The two differ by one step on a few values per model, enough to move a
// Llama 3 Q8_0 file's logits by 1e-2 through the positions that attend to them.
void roundQ8_0(float* x, std::size_t count)
{
    for (std::size_t first = 0; first + 32 <= count; first += 32) {
        float amax = 0.0f;
        for (std::size_t j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[first + j]));
        const float d = amax / 127.0f;
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        const float stored = f16ToF32(quantize::f32ToF16Bits(d));
        for (std::size_t j = 0; j < 32; ++j)
            x[first + j] = stored * static_cast<float>(nearestInt(x[first + j] * id));
    }
}

// quantize_row_q8_K_ref then dequantize: iscale = -127 / (the value of largest magnitude),
// q = min(127, nearest_int(iscale * x)), d = 1 / iscale kept as f32.
void roundQ8_K(float* x, std::size_t count)
{
    for (std::size_t first = 0; first + 256 <= count; first += 256) {
        float amax = 0.0f, max = 0.0f;
        for (std::size_t j = 0; j < 256; ++j) {
            const float a = std::fabs(x[first + j]);
            if (a > amax) {
                amax = a;
                max = x[first + j];
            }
        }
        if (amax == 0.0f) {
            std::fill(x + first, x + first + 256, 0.0f);
            continue;
        }
        const float iscale = -127.0f / max;
        const float d = 1.0f / iscale;
        for (std::size_t j = 0; j < 256; ++j)
            x[first + j] = d * static_cast<float>(std::min(127, nearestInt(iscale * x[first + j])));
    }
}

}  // namespace

ActivationRounding llamaCppActivationRounding(std::uint32_t weightTypeId)
{
    switch (static_cast<GgmlTypeId>(weightTypeId)) {
    case GgmlTypeId::F16:
        return ActivationRounding::F16;
    case GgmlTypeId::BF16:
        return ActivationRounding::Bf16;
    case GgmlTypeId::Q4_1:
    case GgmlTypeId::Q5_1:
        return ActivationRounding::Q8_1;
    case GgmlTypeId::Q4_0:
    case GgmlTypeId::Q5_0:
    case GgmlTypeId::Q8_0:
    case GgmlTypeId::IQ4_NL:
    case GgmlTypeId::MXFP4:
        return ActivationRounding::Q8_0;
    case GgmlTypeId::Q2_K:
    case GgmlTypeId::Q3_K:
    case GgmlTypeId::Q4_K:
    case GgmlTypeId::Q5_K:
    case GgmlTypeId::Q6_K:
    case GgmlTypeId::IQ2_XXS:
    case GgmlTypeId::IQ2_XS:
    case GgmlTypeId::IQ2_S:
    case GgmlTypeId::IQ3_XXS:
    case GgmlTypeId::IQ3_S:
    case GgmlTypeId::IQ1_S:
    case GgmlTypeId::IQ1_M:
    case GgmlTypeId::IQ4_XS:
    case GgmlTypeId::TQ1_0:
    case GgmlTypeId::TQ2_0:
        return ActivationRounding::Q8_K;
    default:
        return ActivationRounding::None;  // f32, and types whose vec_dot_type is not known here
    }
}

ActivationRounding activationRoundingFor(ActivationArithmetic arithmetic, std::uint32_t weightTypeId)
{
    const ActivationRounding rounding = llamaCppActivationRounding(weightTypeId);
    switch (arithmetic) {
    case ActivationArithmetic::Float32:
        return ActivationRounding::None;
    case ActivationArithmetic::QuantizedAsLlamaCpp:
        return rounding == ActivationRounding::F16 || rounding == ActivationRounding::Bf16 ? ActivationRounding::None : rounding;
    case ActivationArithmetic::LlamaCpp:
        return rounding;
    }
    return ActivationRounding::None;
}

const char* activationArithmeticName(ActivationArithmetic arithmetic)
{
    switch (arithmetic) {
    case ActivationArithmetic::Float32:
        return "f32";
    case ActivationArithmetic::QuantizedAsLlamaCpp:
        return "quantized-as-llama.cpp";
    case ActivationArithmetic::LlamaCpp:
        return "llama.cpp";
    }
    return "?";
}

void roundActivations(ActivationRounding rounding, std::span<float> values, std::int64_t rowLength)
{
    const auto row = static_cast<std::size_t>(rowLength);
    for (std::size_t first = 0; first + row <= values.size(); first += row) {
        float* x = values.data() + first;
        switch (rounding) {
        case ActivationRounding::None:
            return;
        case ActivationRounding::F16:
            for (std::size_t i = 0; i < row; ++i)
                x[i] = f16ToF32(quantize::f32ToF16Bits(x[i]));
            break;
        case ActivationRounding::Bf16:
            for (std::size_t i = 0; i < row; ++i)
                x[i] = bf16ToF32(quantize::f32ToBf16Bits(x[i]));
            break;
        case ActivationRounding::Q8_0:
        case ActivationRounding::Q8_1:
            roundQ8_0(x, row);
            break;
        case ActivationRounding::Q8_K:
            roundQ8_K(x, row);
            break;
        }
    }
}

void q8_1SumErrors(std::span<const float> values, std::int64_t rowLength, std::span<float> errors)
{
    // quantize_row_q8_1 (x86 AVX): d = amax / 127, q = round_half_even(x * 127 / amax),
    // y.d = f16(d), y.s = f16(d * sum(q)).
    const auto blocks = static_cast<std::size_t>(rowLength / 32);
    const std::size_t rows = values.size() / static_cast<std::size_t>(rowLength);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t b = 0; b < blocks; ++b) {
            const float* x = values.data() + r * static_cast<std::size_t>(rowLength) + b * 32;
            float amax = 0.0f;
            for (std::size_t j = 0; j < 32; ++j)
                amax = std::max(amax, std::fabs(x[j]));
            const float d = amax / 127.0f;
            const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
            int sum = 0;
            for (std::size_t j = 0; j < 32; ++j)
                sum += nearestInt(x[j] * id);
            const float stored = f16ToF32(quantize::f32ToF16Bits(d * static_cast<float>(sum)));
            const float exact = f16ToF32(quantize::f32ToF16Bits(d)) * static_cast<float>(sum);
            errors[r * blocks + b] = stored - exact;
        }
}

}  // namespace gguf
