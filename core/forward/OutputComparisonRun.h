#pragma once
// The `kld` workflow in the core: run a reference model and each other model (a file, or the
// reference quantized in memory) over the same tokens, chunk by chunk, and compare each with the
// reference (OutputMetrics.h). Streamed: per chunk only the reference's outputs and one other
// run's are held; cancellable between steps.

#include "core/forward/ActivationRounding.h"
#include "core/forward/OutputMetrics.h"
#include "core/forward/SimulatedQuantization.h"
#include "core/types/KvCacheSettings.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace gguf {

struct OutputCandidate {
    std::string label;
    const Model* model = nullptr;    // nullptr: the reference quantized to simulatedType
    std::uint32_t simulatedType = 0;
    // For a simulated candidate: a preset's per-tensor types and importance weights (its
    // targetType is ignored; simulatedType applies when it has no recipe types).
    SimulationSpec simulation{};
};

struct OutputRunOptions {
    // 0: the tokens are one sequence, every position but the last scored. N: independent chunks
    // of N tokens (a shorter tail is dropped), as llama-perplexity --kl-divergence evaluates:
    // the first token of each chunk replaced by `bosToken` (when >= 0) and positions
    // [N/2, N-1) scored.
    std::int64_t chunkSize = 0;
    std::int32_t bosToken = -1;
    bool accumulateInDouble = false;  // ForwardOptions: the exact (double) sums
    bool accumulateWithBlas = false;  // ForwardOptions: cblas_sgemm sums
    ActivationArithmetic activations = ActivationArithmetic::LlamaCpp;  // ForwardOptions::activations
    KvCacheSettings kvCache;                                            // ForwardOptions::kvCache
    TaskExecutor* executor = nullptr;  // ForwardOptions: where the passes' products run
    const std::atomic<bool>* cancel = nullptr;
    // Forward passes done / total, after each one.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
};

struct OutputRunResult {
    std::vector<std::string> labels;             // one per candidate
    std::vector<OutputComparison> comparisons;   // one per candidate
    std::int64_t scoredPositions = 0;
    std::uint64_t peakWeightBytes = 0;           // the most f32 weight bytes any pass held at once
};

// How many queries of chunk `index` (of `chunks` of `chunkSize` tokens) llama-perplexity
// --kl-divergence evaluates per ubatch, with its defaults -b 2048 and -ub 512: it decodes
// max(1, 2048 / chunkSize) chunks at once as separate sequences and splits each ubatch equally
// between them (llama_batch_allocr::split_equal), so each of s chunks advances 512 / s queries
// at a time; the last group may hold fewer chunks. ForwardOptions::ubatchQueries.
std::int64_t llamaPerplexityUbatch(std::int64_t chunkSize, std::int64_t index, std::int64_t chunks);

Result<OutputRunResult> compareModelOutputs(const Model& reference, const std::vector<OutputCandidate>& candidates,
                                            std::span<const std::int32_t> tokens, const OutputRunOptions& options);

}  // namespace gguf
