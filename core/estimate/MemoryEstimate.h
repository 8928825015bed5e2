#pragma once
// How much memory llama.cpp needs to run a model: the weights (split between CPU and GPU by
// `-ngl N` as llama.cpp assigns layers), the KV cache layer by layer, the recurrent state of
// hybrid and state-space models, and the compute buffer. Everything comes from the header
// (hyperparameters and the tensor index), so it works on a remote model before a byte of its
// weights is fetched.
//
// The KV cache follows llama_kv_cache(_iswa): per layer that owns a cache, K =
// row_size(type_k, n_head_kv(il) * n_embd_head_k(il)) and V likewise per cell; cells = the context
// padded to 256, and for sliding-window layers GGML_PAD(min(that, n_swa + n_ubatch), 256) unless
// --swa-full. Without flash attention V is stored transposed, and every V row is padded to the
// widest of the model when the widths differ. MLA keeps K only. Recurrent layers keep
// n_embd_r + n_embd_s f32 values per sequence instead (ComputeBuffer.h for the compute buffer).

#include "core/base/Result.h"
#include "core/gguf/Model.h"
#include "core/types/KvCacheSettings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct EstimateOptions {
    std::uint64_t contextLength = 0;  // 0: the model's training context
    std::uint32_t keyType = 1;        // ggml type ids: f16 by default, as llama.cpp
    std::uint32_t valueType = 1;
    std::int64_t gpuLayers = 0;       // -ngl: the last N layers; more than the layer count also moves the output
    std::uint32_t batch = 2048;       // -b
    std::uint32_t ubatch = 512;       // -ub
    std::uint32_t sequences = 1;      // -np, one unified cache
    FlashAttention flashAttention = FlashAttention::Auto;
    bool fullSlidingWindow = false;   // --swa-full (the command-line tools' default is the small cache)
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
    bool flashAttention = true;       // as resolved from the option
    std::uint64_t weightsCpu = 0;
    std::uint64_t weightsGpu = 0;
    std::vector<LayerKvEstimate> kvLayers;
    std::uint64_t kvCpu = 0;
    std::uint64_t kvGpu = 0;
    std::uint64_t recurrentCpu = 0;   // conv + ssm state of the recurrent layers
    std::uint64_t recurrentGpu = 0;
    std::uint64_t computeBuffer = 0;  // a model of llama.cpp's graph allocation, see ComputeBuffer.h
    std::uint64_t outputBuffer = 0;   // logits of one token per sequence
    bool kvExact = true;              // false where the architecture is only approximated
    std::vector<std::string> notes;   // what is approximate, and why

    std::uint64_t kvTotal() const { return kvCpu + kvGpu; }
    std::uint64_t recurrentTotal() const { return recurrentCpu + recurrentGpu; }
    std::uint64_t cpuTotal() const { return weightsCpu + kvCpu + recurrentCpu + (weightsGpu ? 0 : computeBuffer) + outputBuffer; }
    std::uint64_t gpuTotal() const { return weightsGpu + kvGpu + recurrentGpu + (weightsGpu ? computeBuffer : 0); }
    std::uint64_t total() const { return cpuTotal() + gpuTotal(); }
};

Result<MemoryEstimate> estimateMemory(const Model& model, const EstimateOptions& options);

// Bytes of one row of `elements` values of ggml type `typeId` (ggml_row_size); 0 when the type
// is unknown or the count is not a whole number of blocks.
std::uint64_t rowBytes(std::uint32_t typeId, std::uint64_t elements);

}  // namespace gguf
