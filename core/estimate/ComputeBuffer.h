#pragma once
// llama.cpp's compute buffer: what ggml's graph allocator reserves for the worst-case ubatch
// (n_tokens = n_ubatch, every token an output). The allocator places each intermediate tensor of
// the graph in one arena and reuses freed space, so the buffer is the arena's high-water mark.
// What sets it:
//   - the KQ masks, graph inputs that live through every layer: one per cache kind (full, SWA),
//     [cells, n_ubatch] in f32 without flash attention and f16 with it;
//   - without flash attention, the attention scores of one layer, f32 [cells, n_ubatch, n_head]
//     (softmax runs in place), which dwarf everything else at long contexts;
//   - the activations of one block: the residual stream, the normed input and one more tensor
//     of n_embd (3 x n_embd), the widest intermediate (FFN, experts x top-k, the Q projection,
//     MLA's absorbed query and output, 2 x n_head x kv_lora_rank), and per-layer inputs;
//   - the logits, f32 [n_vocab, n_ubatch]. The allocator stacks them on the block's activations
//     when these are larger (small models), and places them over freed space otherwise (big
//     vocabularies), leaving one n_embd tensor beside them.
// Checked against llama.cpp's own figure for every context it logged for the fixtures of
// fixtures/llama.cpp/arch (tests/estimate); within 5% there, with flash attention on and off.

#include "core/estimate/EstimateShape.h"

#include <cstdint>

namespace gguf {

struct ComputeBufferInputs {
    std::uint64_t tokens = 512;      // n_tokens of the worst-case ubatch
    std::uint64_t fullCells = 0;     // cells of the cache of full-attention layers
    std::uint64_t slidingCells = 0;  // cells of the sliding-window cache
    bool flashAttention = true;
};

// Saturates at 2^64 - 1 for sizes no machine holds.
std::uint64_t estimateComputeBuffer(const EstimateShape& shape, const ComputeBufferInputs& inputs);

}  // namespace gguf
