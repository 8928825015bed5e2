#pragma once
// --f32-activations and --llama-activations for the commands that run forward passes (logits,
// kld, scan): which ActivationArithmetic the passes use. The default quantizes the activations of
// quantized weights as llama.cpp does; the two flags exclude each other.

#include "CliArguments.h"
#include "core/forward/ActivationRounding.h"

#include <optional>

// The arithmetic the flags ask for, or nothing after reporting that both were given.
std::optional<gguf::ActivationArithmetic> activationArithmeticOrReport(const CliArguments& args);
