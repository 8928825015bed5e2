#pragma once
// llama.cpp's compute buffer: what ggml's graph allocator reserves for the worst-case graph
// (n_ubatch tokens, every one an output, attention over the whole cache). The estimate builds
// that graph as llama.cpp builds it for the model's architecture (ArchitectureGraphs.h: the same
// ops, shapes and node order, from the header's hyperparameters and tensor shapes) and replays
// the allocator over it (GraphAllocator.h): inputs first, results placed best-fit in freed space
// or in place of a source with no other use, sources freed after their last use. The buffer is
// the high-water mark, not a sum. An architecture without its own graph here gets the generic
// pre-norm decoder's, marked as not exact.

#include "core/estimate/EstimateShape.h"
#include "core/gguf/Model.h"
#include "core/types/GgmlType.h"

#include <cstdint>

namespace gguf {

struct ComputeBufferInputs {
    std::uint64_t tokens = 512;      // n_tokens of the worst-case ubatch
    std::uint64_t fullCells = 0;     // cells of the cache of full-attention layers
    std::uint64_t slidingCells = 0;  // cells of the sliding-window cache
    bool flashAttention = true;
    std::uint32_t keyType = 1;  // the cache types (ggml ids)
    std::uint32_t valueType = 1;
};

struct ComputeBufferEstimate {
    std::uint64_t bytes = 0;  // 2^64 - 1 when a size does not fit in 64 bits
    bool exact = false;       // the architecture's own graph (else the generic decoder's)
    bool modelled = true;     // false: the graph would be too large to build (bytes is 0)
};

ComputeBufferEstimate estimateComputeBuffer(const Model& model, const EstimateShape& shape, const ComputeBufferInputs& inputs);

}  // namespace gguf
