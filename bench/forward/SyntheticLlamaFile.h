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
};

// Writes `path`; on failure returns the error text, else an empty string.
std::string writeSyntheticLlama(const std::string& path, const LlamaShape& shape);

}  // namespace forwardbench
