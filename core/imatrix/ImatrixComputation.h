#pragma once
// An importance matrix computed here, as `llama-imatrix -m MODEL -f TEXT -c N -b N` computes it:
// the text's tokens cut into chunks of N (a shorter tail dropped), each chunk's first token
// replaced by BOS, each chunk run through the forward pass on its own (llama-imatrix clears the
// KV cache per chunk), the inputs of every product collected (ImatrixCollector.h). Memory: one
// chunk's pass and the sums. The perplexity llama-imatrix prints along the way is computed too,
// over each chunk's second half, as a check that the pass is llama.cpp's.

#include "core/base/Result.h"
#include "core/base/TaskExecutor.h"
#include "core/forward/ActivationRounding.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ImatrixSums.h"
#include "core/types/KvCacheSettings.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

struct ImatrixRunOptions {
    std::int64_t chunkSize = 512;  // llama-imatrix's -c (its default)
    std::int64_t chunkLimit = -1;  // --chunks: at most this many chunks; -1 all
    std::int32_t bosToken = -1;    // put first in every chunk when >= 0 (the model's add_bos)
    bool processOutput = false;    // also output.weight (--process-output)
    std::string dataset;           // recorded in the file (llama-imatrix records the -f path)
    ActivationArithmetic activations = ActivationArithmetic::LlamaCpp;
    KvCacheSettings kvCache;
    TaskExecutor* executor = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    // After each chunk: chunks done, chunks in all.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
};

// An expert that the run routed fewer tokens to than asked (none at all when `tokens` is 0).
struct UnderRoutedExpert {
    std::string tensor;  // the entry, e.g. blk.1.ffn_down_exps.weight
    std::int64_t expert = 0;
    std::int64_t tokens = 0;
};

struct ImatrixRunResult {
    ImatrixSums sums;
    std::int64_t chunks = 0;
    std::int64_t chunkSize = 0;
    double perplexity = 0.0;  // over the second half of every chunk, as llama-imatrix's final estimate
    std::uint64_t peakWeightBytes = 0;
};

// llama-imatrix's refusals apply: fewer than two chunks' tokens, a chunk under 2 tokens.
Result<ImatrixRunResult> computeImatrix(const Model& model, std::span<const std::int32_t> tokens, const ImatrixRunOptions& options);

// The BOS llama-imatrix puts first in every chunk: the model's, when its tokenizer adds one
// (llama_vocab_get_add_bos); -1 otherwise.
std::int32_t imatrixChunkBos(const Model& model);

// computeImatrix over `text` tokenized with the model's tokenizer as llama-imatrix tokenizes it
// (BOS as the model asks, special-token text parsed only with `parseSpecial`), the chunks'
// BOS set by imatrixChunkBos. A text beyond Tokenizer::kMaxTextBytes is refused.
Result<ImatrixRunResult> computeImatrixFromText(const Model& model, std::string_view text, bool parseSpecial, ImatrixRunOptions options);

// The experts of every entry that got fewer than `fewest` tokens (no tokens when fewest is 1),
// by entry name and expert; dense entries are not experts and never listed.
std::vector<UnderRoutedExpert> underRoutedExperts(const ImatrixSums& sums, std::int64_t fewest);

}  // namespace gguf
