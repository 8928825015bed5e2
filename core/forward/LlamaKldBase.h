#pragma once
// The header of llama-perplexity's --kl-divergence-base file: "_logits_", u32 n_ctx, i32 n_vocab,
// i32 n_chunk, i32 tokens[n_ctx * n_chunk] (then per chunk the base log-probabilities, which
// we do not need: we run the reference ourselves). Lets `kld` score exactly the chunks and
// positions llama-perplexity scored.

#include "core/base/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct LlamaKldBase {
    std::int64_t contextSize = 0;
    std::int64_t vocabularySize = 0;
    std::int64_t chunkCount = 0;
    std::vector<std::int32_t> tokens;  // contextSize * chunkCount
};

// Fails with the path, the field and its byte offset for a file that is not one, too short, or
// whose counts do not fit its size.
Result<LlamaKldBase> readLlamaKldBase(const std::string& path);

}  // namespace gguf
