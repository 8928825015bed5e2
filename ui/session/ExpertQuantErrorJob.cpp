#include "ui/session/ExpertQuantErrorJob.h"

#include "core/compare/ImportanceErrorMetrics.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>

// Each expert's weighted figures use that expert's own weights (quantWeights(e)), as its rows
// were quantized with: worked out once, by the first chunk that needs them, on the pool.
struct ExpertQuantWeights {
    std::once_flag once;
    std::optional<gguf::TensorImportance> importance;
};

bool ExpertQuantErrorJob::entryFitsTensor() const
{
    return weights && weights->importance.has_value();
}

gguf::Result<gguf::ModelComparison> pairTensorForQuantError(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo& tensor,
                                                           const std::vector<std::uint32_t>& types,
                                                           std::shared_ptr<const gguf::ImportanceMatrix> matrix,
                                                           const std::vector<std::shared_ptr<const gguf::Model>>& others)
{
    gguf::ComparisonOptions options;
    options.referenceIndex = 0;
    options.simulatedTypes = types;
    const std::string name(tensor.name);
    options.includeTensor = [name](std::string_view candidate) { return candidate == name; };
    // Bound to this model when it was read: each expert's rows get that expert's weights.
    options.importance = std::move(matrix);
    std::vector<std::shared_ptr<const gguf::Model>> models{std::move(model)};
    models.insert(models.end(), others.begin(), others.end());
    return gguf::ModelComparison::create(std::move(models), options);
}

ExpertQuantErrorJob startExpertQuantErrorJob(JobRunner& runner, std::shared_ptr<const gguf::ModelComparison> comparison,
                                             std::shared_ptr<const gguf::ImportanceMatrix> matrix, const gguf::ImportanceEntry* entry,
                                             ExpertQuantErrorEnd onEnd, std::size_t row)
{
    const gguf::TensorInfo& tensor = *comparison->rows()[row].reference;
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    const auto columns = static_cast<std::uint64_t>(comparison->columns().size());
    const std::uint64_t expertElements = static_cast<std::uint64_t>(tensor.ne[0]) * static_cast<std::uint64_t>(tensor.ne[1]);
    const std::uint64_t rowLength = std::max<std::uint64_t>(static_cast<std::uint64_t>(tensor.ne[0]), 1);
    // Whole rows per range: every type the comparison picked fits a row (it falls back otherwise).
    const std::uint64_t step = std::max<std::uint64_t>(1, gguf::kComparisonChunkElements / rowLength) * rowLength;
    ExpertQuantErrorJob started;
    started.results = std::make_shared<ExpertQuantErrorResults>(static_cast<std::size_t>(experts * columns));
    auto weights = std::make_shared<ExpertQuantWeights>();
    started.weights = weights;
    const auto fits = [weights] { return weights->importance.has_value(); };
    started.job = runner.runChunks(
        static_cast<int>(experts * columns),
        [comparison, row, results = started.results, columns, expertElements, step, matrix, entry, weights](int chunk, const JobControl& control) -> gguf::Status {
        const std::uint64_t expert = static_cast<std::uint64_t>(chunk) / columns;
        const auto column = static_cast<std::size_t>(static_cast<std::uint64_t>(chunk) % columns);
        if (!comparison->rows()[row].cells[column].ok())
            return gguf::Ok{};  // explained in the message; the cell stays empty
        if (matrix && entry)
            std::call_once(weights->once, [&] { weights->importance = gguf::tensorImportance(entry, *comparison->rows()[row].reference); });
        const gguf::TensorImportance* importance = weights->importance ? &*weights->importance : nullptr;
        gguf::ErrorAccumulator accumulator;
        std::vector<float> reference;
        std::vector<float> other;
        std::vector<float> w;
        for (std::uint64_t begin = expert * expertElements; begin < (expert + 1) * expertElements; begin += step) {
            if (control.isCancelled())
                return gguf::Ok{};  // the job reports the cancel; nothing to publish
            const gguf::ElementRange range{begin, std::min(begin + step, (expert + 1) * expertElements)};
            reference.resize(static_cast<std::size_t>(range.size()));
            other.resize(reference.size());
            if (gguf::Status s = comparison->reconstruct(row, column, range, reference, other); !s)
                return s;
            if (importance) {  // the plain figures exactly as add() makes them, the weighted sums on top
                w.resize(reference.size());
                importance->fill(range.begin, w);
                accumulator.addWeighted(reference, other, w);
            } else {
                accumulator.add(reference, other);
            }
        }
        results->publish(static_cast<std::size_t>(chunk), accumulator.result());
        return gguf::Ok{};
    },
        [onEnd, fits](const std::vector<gguf::Ok>&) { onEnd(JobOutcome::done(), fits()); },
        [onEnd, fits](const JobOutcome& outcome) { onEnd(outcome, fits()); });
    return started;
}
