#pragma once
// A WeightTransform that quantizes each weight matrix the way `convert --type` would (the same
// per-tensor choice, QuantizationPolicy.h) and dequantizes it again, so the forward pass runs
// "the reference quantized in memory" without writing a file.

#include "forward/WeightLoader.h"

#include <cstdint>

namespace gguf {

// Fails later, on the first tensor, when the type has no quantizer (callers check canQuantize).
WeightTransform simulatedQuantization(std::uint32_t targetType, ParallelRows& pool = ParallelRows::shared());

}  // namespace gguf
