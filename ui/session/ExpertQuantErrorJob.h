#pragma once
// The computation behind the Experts page's Quantization error tab: every expert of one tensor
// quantized in memory to each chosen type and compared with the values the file stores, through
// a ModelComparison of that tensor alone whose columns are the types ("simulated") or other open
// files of the model; also the Compare page's plain per-expert figures of one row. One pool
// chunk per (expert, type); each publishes its figures as it finishes. With an importance matrix
// each expert's rows are quantized with that expert's own weights (as llama-quantize --imatrix
// does), and its weighted figures use the same weights.

#include "core/base/Result.h"
#include "core/compare/ErrorMetrics.h"
#include "core/compare/ModelComparison.h"
#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"
#include "ui/session/PartialResults.h"

#include <QObject>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace gguf {
class ImportanceMatrix;
struct ImportanceEntry;
}  // namespace gguf

using ExpertQuantErrorResults = PartialResults<gguf::ErrorMetrics>;

// Pairs only `tensor` of `model` (no tensor data is read): first one column per file of `others`
// (other files of the model: their stored values), then one simulated column per type; with
// `matrix` (bound to `model`), the simulated columns quantize with its weights.
gguf::Result<gguf::ModelComparison> pairTensorForQuantError(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo& tensor,
                                                           const std::vector<std::uint32_t>& types,
                                                           std::shared_ptr<const gguf::ImportanceMatrix> matrix,
                                                           const std::vector<std::shared_ptr<const gguf::Model>>& others = {});

struct ExpertQuantWeights;

struct ExpertQuantErrorJob {
    BackgroundJob* job = nullptr;  // run by the runner it was started with
    // Expert e, type column c in slot e * types + c; an expert of a column the tensor cannot be
    // quantized to stays empty.
    std::shared_ptr<ExpertQuantErrorResults> results;
    std::shared_ptr<const ExpertQuantWeights> weights;

    // Whether the matrix's entry fitted the tensor's shape, so that the figures are weighted:
    // known once the job has ended (a chunk works it out on the pool). False without an entry.
    bool entryFitsTensor() const;
};

// How the job ended, and whether the matrix's entry fitted the tensor (see entryFitsTensor()).
using ExpertQuantErrorEnd = std::function<void(const JobOutcome& outcome, bool entryFitsTensor)>;

// Runs the chunks for row `row` of `comparison` (the one row from pairTensorForQuantError, or a
// 3-D tensor of a whole-model comparison: its columns may be other files) as a new request of
// `runner`; `onEnd` runs once unless a newer request came first. `entry`: the matrix's entry for
// the tensor, or null for no weighted figures; `matrix` keeps it alive.
ExpertQuantErrorJob startExpertQuantErrorJob(JobRunner& runner, std::shared_ptr<const gguf::ModelComparison> comparison,
                                             std::shared_ptr<const gguf::ImportanceMatrix> matrix, const gguf::ImportanceEntry* entry,
                                             ExpertQuantErrorEnd onEnd, std::size_t row = 0);
