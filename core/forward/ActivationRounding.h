#pragma once
// What llama.cpp's CPU backend does to the activations before a product with a weight of a given
// type (ggml-cpu's vec_dot_type, CpuProduct::activations in the type table): f16 and bf16
// weights see the activations rounded to f16 / bf16; quantized weights see them quantized to
// q8_0, q8_1 (32-value blocks, f16 scale) or q8_K (256-value blocks, f32 scale). Emulating it
// lets our pass reproduce llama.cpp's numbers for a file, not only the file's weights.

#include <cstdint>
#include <span>

namespace gguf {

// Q8_1 rounds as Q8_0 does; it is the q8_1 of q4_1 / q5_1 weights, whose products also take
// each block's activation sum from the q8_1 block's f16 `s` (QuantizedDot.h).
enum class ActivationRounding { None, F16, Bf16, Q8_0, Q8_1, Q8_K };

// The rounding of the type's CpuProduct::activations; None for f32 and unknown types.
ActivationRounding llamaCppActivationRounding(std::uint32_t weightTypeId);

// What a forward pass does to the activations before each product (ForwardOptions::activations).
enum class ActivationArithmetic {
    // Pure f32: the model as its weights define it. The slow exact mode: a quantized weight is
    // dequantized and multiplied in floats.
    Float32,
    // The default. Activations multiplied by a quantized weight are quantized as llama.cpp's CPU
    // backend quantizes them (q8_0, q8_1, q8_K), which lets those products run in integers as
    // llama.cpp's do; f32 and f16 / bf16 weights, and attention, see f32 activations. llama.cpp
    // always runs a quantized file this way, and the 8-bit step is a part of the output error a
    // quantization causes there; the f16 rounding, 11 significant bits per value against about 7
    // of a block's largest value, is far smaller.
    QuantizedAsLlamaCpp,
    // Everything llama.cpp's CPU backend does: also f16 / bf16 rounding before f16 / bf16
    // products, and its attention (f16 keys and values, its softmax and exp). Its numbers, to
    // the bit where the kernels allow.
    LlamaCpp,
};

// The rounding `arithmetic` applies before a product with a weight of type `weightTypeId`.
ActivationRounding activationRoundingFor(ActivationArithmetic arithmetic, std::uint32_t weightTypeId);

// The CLI's and the bench's spelling: "f32", "quantized-as-llama.cpp", "llama.cpp".
const char* activationArithmeticName(ActivationArithmetic arithmetic);

// Rounds `values` (rows of `rowLength`, a multiple of the block size for the q8 kinds) in place
// to what the quantized activations dequantize to (QuantizedDot.h's quantizer, then scale * q).
void roundActivations(ActivationRounding rounding, std::span<float> values, std::int64_t rowLength);

}  // namespace gguf
