#include "core/forward/ActivationRounding.h"

#include "core/kernels/HalfFloat.h"
#include "core/kernels/QuantizedDot.h"
#include "core/kernels/FloatEncode.h"
#include "core/types/GgmlType.h"

namespace gguf {

ActivationRounding llamaCppActivationRounding(std::uint32_t weightTypeId)
{
    const TypeTraits* type = findType(weightTypeId);
    if (!type)
        return ActivationRounding::None;
    switch (type->cpu.activations) {
    case GgmlTypeId::F16:
        return ActivationRounding::F16;
    case GgmlTypeId::BF16:
        return ActivationRounding::Bf16;
    case GgmlTypeId::Q8_0:
        return ActivationRounding::Q8_0;
    case GgmlTypeId::Q8_1:
        return ActivationRounding::Q8_1;
    case GgmlTypeId::Q8_K:
        return ActivationRounding::Q8_K;
    default:
        return ActivationRounding::None;
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
    if (rounding == ActivationRounding::None || row == 0)
        return;
    if (rounding == ActivationRounding::F16 || rounding == ActivationRounding::Bf16) {
        for (float& x : values)
            x = rounding == ActivationRounding::F16 ? f16ToF32(quantize::f32ToF16Bits(x)) : bf16ToF32(quantize::f32ToBf16Bits(x));
        return;
    }
    const Q8Kind kind = rounding == ActivationRounding::Q8_K ? Q8Kind::Q8_K : rounding == ActivationRounding::Q8_1 ? Q8Kind::Q8_1 : Q8Kind::Q8_0;
    thread_local Q8Activations quantized;
    const auto rows = static_cast<std::int64_t>(values.size() / row);
    quantizeActivations(kind, values.data(), rows, rowLength, quantized);
    dequantizeActivations(quantized, values.data());
}

}  // namespace gguf
