#pragma once
// A llama-architecture GGUF with a chosen shape and random f32 weights (fixed seed), plus the
// minimal SentencePiece vocabulary llama.cpp needs to load it, so the same file runs in our pass
// and in llama.cpp.

#include <cstdint>
#include <string>

namespace forwardbench {

struct LlamaShape {
    std::int64_t embedding = 4096;   // 7B: Llama-2-7B's dimensions
    std::int64_t feedForward = 11008;
    std::int64_t heads = 32;
    std::int64_t kvHeads = 32;
    std::int64_t layers = 2;
    std::int64_t vocabulary = 32000;
    // With experts > 0 the FFN is a mixture of experts (Mixtral's llama layout: ffn_gate_inp and
    // ffn_{gate,up,down}_exps), `feedForward` wide per expert, `expertsUsed` routed per token.
    std::int64_t experts = 0;
    std::int64_t expertsUsed = 0;
};

// Mixtral-8x7B's layer (8 experts of 14336, 2 routed) and Qwen3-30B-A3B's expert layout (128
// experts of 768, 8 routed, embedding 2048, 32 query and 4 key/value heads) on llama's attention.
LlamaShape mixtralShape();
LlamaShape qwen3MoeShape();

// Writes `path`; on failure returns the error text, else an empty string.
std::string writeSyntheticLlama(const std::string& path, const LlamaShape& shape);

}  // namespace forwardbench
