#include "ActivationOption.h"

std::optional<gguf::ActivationArithmetic> activationArithmeticOrReport(const CliArguments& args)
{
    const bool f32 = args.has("--f32-activations");
    const bool llama = args.has("--llama-activations");
    if (f32 && llama) {
        reportFailure("--f32-activations and --llama-activations exclude each other", 2);
        return std::nullopt;
    }
    if (f32)
        return gguf::ActivationArithmetic::Float32;
    if (llama)
        return gguf::ActivationArithmetic::LlamaCpp;
    return gguf::ActivationArithmetic::QuantizedAsLlamaCpp;
}
