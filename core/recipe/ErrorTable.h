#pragma once
// What each choice costs: for every tensor llama-quantize would quantize and every candidate
// type whose blocks its rows fit, the bytes it would take and the squared error it would add
// (importance-weighted when an importance lookup is given), estimated from a few sampled rows
// per tensor scaled to all rows. The rows are streamed: each thread holds one row of values and
// its quantized bytes at a time, so memory stays small for any model size. Results are summed
// in a fixed order, so they do not depend on the thread count.

#include "core/gguf/Model.h"
#include "core/recipe/RecipeConversion.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace gguf {

struct ErrorTableOptions {
    std::vector<std::uint32_t> candidateTypes;  // empty: defaultCandidateTypes(...)
    std::size_t sampleRows = 64;                // rows measured per tensor (all rows when it has fewer)
    TaskExecutor* executor = nullptr;           // measures the samples; null: the calling thread alone
    ImportanceLookup importance;                // empty: unweighted squared error and plain quantizers
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;  // sampled rows
};

struct TypeChoice {
    std::uint32_t typeId = 0;
    std::uint64_t bytes = 0;   // the whole tensor in this type (unpadded)
    double error = 0.0;        // estimated sum of squared errors over the whole tensor
    // What the planner minimises (MixPlanner.h): the relative error error / energy here, a
    // measured KLD when a sensitivity scan replaces it.
    double cost = 0.0;
};

struct TensorErrors {
    const TensorInfo* tensor = nullptr;
    std::vector<TypeChoice> choices;  // by candidate order
    std::uint64_t sampledRows = 0;
    // The tensor's own energy in the same weighting as its errors (sum of w * x^2, estimated over
    // the whole tensor), and whether that weighting is the importance matrix's.
    double energy = 0.0;
    bool weighted = false;
    const TypeChoice* find(std::uint32_t typeId) const;
};

struct ErrorTable {
    std::vector<TensorErrors> tensors;   // the quantizable tensors, in llama-quantize's order
    std::vector<const TensorInfo*> kept; // tensors llama-quantize keeps as they are
    std::uint64_t totalElements = 0;     // all tensors
    bool weighted = false;               // importance-weighted errors (where the matrix has weights)
};

// The block-quantized types the core quantizes to (canQuantize) plus f16/bf16, cheapest first.
std::vector<std::uint32_t> defaultCandidateTypes(bool withImportance);

Result<ErrorTable> measureErrorTable(const Model& model, const ErrorTableOptions& options);

}  // namespace gguf
