#pragma once
// Comparisons across the experts of one expert tensor: per-expert statistics, the cosine
// similarity of every pair of experts, and the norm of each expert's router row. All stream over
// row ranges; callers split the ranges across threads and merge the partial results.

#include "core/base/Result.h"
#include "core/analysis/Statistics.h"
#include "core/gguf/TensorInfo.h"

#include <atomic>
#include <vector>

namespace gguf {

// Largest expert count the similarity functions accept (today's models use at most a few hundred).
inline constexpr std::uint64_t kMaxSimilarityExperts = 4096;

struct ExpertStatistics {
    std::uint64_t expert = 0;
    Statistics statistics;
    double maxAbs = 0.0;
    double sparsity = 0.0;  // fraction of weights that are exactly zero
};

// Statistics of one expert (rows ne[1] of expert `expert`).
Result<ExpertStatistics> computeExpertStatistics(const TensorInfo& tensor, std::uint64_t expert, const std::atomic<bool>* cancelled = nullptr);

// Dot products of every pair of experts over the rows [rowBegin, rowEnd) of each expert's
// matrix (row r of every expert). `dots` is n × n, row-major, and is added to, so partial
// results over disjoint row ranges sum to the whole.
Status accumulateExpertDots(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<double>& dots,
                            const std::atomic<bool>* cancelled = nullptr);

// Cosine similarity from the dot matrix: dots[i][j] / sqrt(dots[i][i] * dots[j][j]); NaN where
// an expert is all zeros.
std::vector<double> cosineFromDots(const std::vector<double>& dots, std::uint64_t expertCount);

// The whole similarity matrix in one call (single thread), for the CLI and tests.
Result<std::vector<double>> expertCosineSimilarity(const TensorInfo& tensor, const std::atomic<bool>* cancelled = nullptr);

// L2 norm of each row of the router (ffn_gate_inp, ne = [n_embd, n_expert]): one per expert.
Result<std::vector<double>> routerRowNorms(const TensorInfo& router);

}  // namespace gguf
