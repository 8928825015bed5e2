#pragma once
// The few hyper-parameters llama-quantize's per-tensor rules look at, read from a model's
// metadata the way llama.cpp's loader reads them: architecture, layer count, attention heads
// (for the grouped-query ratio), experts, and whether llama.cpp would call the model a 70B.

#include "core/gguf/Model.h"

#include <cstdint>
#include <string>

namespace gguf {

struct ModelShape {
    std::string architecture;   // general.architecture
    std::uint32_t layerCount = 0;   // {arch}.block_count
    std::uint32_t headCount = 0;    // {arch}.attention.head_count (layer 0 when per layer)
    std::uint32_t headCountKv = 0;  // {arch}.attention.head_count_kv, default head_count
    std::uint32_t expertCount = 0;  // {arch}.expert_count, default 0
    bool is70B = false;             // llama with 80 layers and grouped-query attention

    // llama_hparams::n_gqa(): heads per KV head, 0 without KV heads.
    std::uint32_t gqa() const { return headCountKv == 0 ? 0 : headCount / headCountKv; }
};

ModelShape readModelShape(const Model& model);

}  // namespace gguf
