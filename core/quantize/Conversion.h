#pragma once
// Converts a model to another type: every weight matrix llama.cpp would quantize is dequantized
// to f32 and quantized to the target (streamed in row chunks on several threads, never a whole
// tensor in memory);
// everything else (1-D norms, MoE routers, tensors left out by the pattern) is copied unchanged,
// as llama-quantize does. The output is one GGUF v3 little-endian file with all metadata kept
// (split.* keys dropped), general.file_type updated and the input's alignment honoured. It is
// written through a temporary file and never over an input.

#include "core/base/TaskExecutor.h"
#include "core/gguf/Model.h"
#include "core/quantize/ImportanceWeights.h"
#include "core/quantize/QuantizationPolicy.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gguf {

inline constexpr std::uint64_t kConversionChunkElements = std::uint64_t{1} << 20;

struct ConversionOptions {
    std::uint32_t targetType = 0;
    std::string tensorPattern;  // a UserPattern searched in each name; empty: every tensor
    std::uint64_t chunkElements = kConversionChunkElements;
    TaskExecutor* executor = nullptr;  // quantizes batches of chunks; null: the calling thread alone. Same bytes for any executor.
    const std::atomic<bool>* cancel = nullptr;  // set to stop; nothing is left behind
    // llama-quantize's --imatrix: tensors with an entry are quantized with its weights (per
    // expert for 3-D tensors), the others without, and the file records the imatrix as
    // llama-quantize does (quantize.imatrix.*). Must outlive the conversion.
    const ImportanceWeights* importance = nullptr;
    // Elements of input done / total (all tensors, copied ones included), after each chunk.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

struct ConversionTensorPlan {
    const TensorInfo* source = nullptr;
    TensorTarget target;  // quantize or keep, the output type, and why
    bool weighted = false;  // quantized with importance weights
};

struct ConversionPlan {
    std::vector<ConversionTensorPlan> tensors;  // in input order
    std::vector<std::string> warnings;          // e.g. requantizing quantized input, fallback types
    std::optional<std::uint32_t> fileType;      // the general.file_type written (llama_ftype)
    std::size_t quantizedCount = 0;
    std::size_t weightedCount = 0;  // of those, quantized with importance weights
};

// What convertModel would do, without writing anything. Fails for an invalid pattern, a target
// type the core cannot produce, or a tensor of a type that cannot be written (unknown type ids).
Result<ConversionPlan> planConversion(const Model& input, const ConversionOptions& options);

// Plans, then writes `outputPath`. Refuses an output that is one of the input's files.
Result<ConversionPlan> convertModel(const Model& input, const std::string& outputPath, const ConversionOptions& options);

}  // namespace gguf
