#pragma once
// How much memory llama.cpp needs to run a model: the weights (split between CPU and GPU by
// `-ngl N` as llama.cpp assigns layers), the KV cache layer by layer, and the compute buffer.
// Everything comes from the header (hyperparameters and the tensor index), so it works on a
// remote model before a byte of its weights is fetched.
//
// The KV cache follows llama_kv_cache: per layer, K = row_size(type_k, head_count_kv(layer) *
// key_length) and V = row_size(type_v, head_count_kv(layer) * value_length) bytes per cell;
// cells = the context padded to 256 (as llama_context pads it), and for sliding-window layers
// min(that, pad(sliding_window + ubatch, 256)). MLA models (DeepSeek-2/3, Kimi) declare their
// compressed cache in key_length/value_length (kv_lora_rank + rope dims, one KV head) when
// converted with the MLA keys; older conversions are estimated from kv_lora_rank and flagged.

#include "base/Result.h"
#include "gguf/Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct EstimateOptions {
    std::uint64_t contextLength = 0;  // 0: the model's training context
    std::uint32_t keyType = 1;        // ggml type ids: f16 by default, as llama.cpp
    std::uint32_t valueType = 1;
    std::int64_t gpuLayers = 0;       // -ngl: the last N layers; more than the layer count also moves the output
    std::uint32_t ubatch = 512;       // -ub
    std::uint32_t sequences = 1;      // -np, one unified cache
    bool fullSlidingWindow = false;   // --swa-full
};

struct LayerKvEstimate {
    std::uint32_t layer = 0;
    std::uint64_t cells = 0;
    std::uint64_t keyBytes = 0;
    std::uint64_t valueBytes = 0;
    bool slidingWindow = false;
    bool onGpu = false;
};

struct MemoryEstimate {
    std::string architecture;
    std::uint64_t contextLength = 0;  // after padding
    std::uint32_t layerCount = 0;
    std::uint64_t weightsCpu = 0;
    std::uint64_t weightsGpu = 0;
    std::vector<LayerKvEstimate> kvLayers;
    std::uint64_t kvCpu = 0;
    std::uint64_t kvGpu = 0;
    std::uint64_t computeBuffer = 0;  // approximate, see estimateMemory
    std::uint64_t outputBuffer = 0;   // logits of one token per sequence
    bool kvExact = true;              // false where the architecture is only approximated
    std::vector<std::string> notes;   // what is approximate, and why

    std::uint64_t kvTotal() const { return kvCpu + kvGpu; }
    std::uint64_t cpuTotal() const { return weightsCpu + kvCpu + (weightsGpu ? 0 : computeBuffer) + outputBuffer; }
    std::uint64_t gpuTotal() const { return weightsGpu + kvGpu + (weightsGpu ? computeBuffer : 0); }
    std::uint64_t total() const { return cpuTotal() + gpuTotal(); }
};

Result<MemoryEstimate> estimateMemory(const Model& model, const EstimateOptions& options);

// Bytes of one row of `elements` values of ggml type `typeId` (ggml_row_size); 0 when the type
// is unknown or the count is not a whole number of blocks.
std::uint64_t rowBytes(std::uint32_t typeId, std::uint64_t elements);

}  // namespace gguf
