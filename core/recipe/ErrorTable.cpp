#include "core/recipe/ErrorTable.h"

#include "core/base/TaskExecutor.h"
#include "core/gguf/Dequantize.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/LlamaQuantRecipe.h"

#include <algorithm>
#include <numeric>

namespace gguf {

namespace {

using T = GgmlTypeId;

// Types ggml will not make without an importance matrix (ggml_quantize_requires_imatrix and
// llama-quantize's own refusals).
bool refusedWithoutImatrix(std::uint32_t typeId)
{
    switch (static_cast<T>(typeId)) {
    case T::IQ1_S: case T::IQ1_M: case T::IQ2_XXS: case T::IQ2_XS: case T::IQ2_S: case T::IQ3_XXS:
        return true;
    default:
        return false;
    }
}

// A piece of work: some sampled rows of one tensor.
struct SampleTask {
    std::size_t tensor = 0;
    std::uint64_t firstSample = 0;
    std::uint64_t sampleCount = 0;
};

constexpr std::uint64_t kSamplesPerTask = 4;

// The i-th of `samples` rows spread evenly over `rows`.
std::uint64_t sampledRow(std::uint64_t i, std::uint64_t samples, std::uint64_t rows)
{
    return static_cast<std::uint64_t>((static_cast<long double>(i) + 0.5L) * static_cast<long double>(rows) / static_cast<long double>(samples));
}

}  // namespace

const TypeChoice* TensorErrors::find(std::uint32_t typeId) const
{
    for (const TypeChoice& choice : choices)
        if (choice.typeId == typeId)
            return &choice;
    return nullptr;
}

std::vector<std::uint32_t> defaultCandidateTypes(bool withImportance)
{
    std::vector<const TypeTraits*> types;
    for (const TypeTraits* type = typeTableBegin(); type != typeTableEnd(); ++type) {
        const bool wanted = type->kind == TypeKind::Quantized || type->is(T::F16) || type->is(T::BF16);
        if (!wanted || !type->dequantize || !canQuantize(type->id) || (refusedWithoutImatrix(type->id) && !withImportance))
            continue;
        if (type->is(T::Q8_1) || type->is(T::Q8_K))  // dot-product helpers, not storage types
            continue;
        types.push_back(type);
    }
    std::stable_sort(types.begin(), types.end(), [](const TypeTraits* a, const TypeTraits* b) { return a->bitsPerWeight() < b->bitsPerWeight(); });
    std::vector<std::uint32_t> ids;
    for (const TypeTraits* type : types)
        ids.push_back(type->id);
    return ids;
}

Result<ErrorTable> measureErrorTable(const Model& model, const ErrorTableOptions& options)
{
    const std::vector<std::uint32_t> candidates =
        options.candidateTypes.empty() ? defaultCandidateTypes(bool(options.importance)) : options.candidateTypes;
    for (const std::uint32_t type : candidates) {
        const TypeTraits* traits = findType(type);
        if (!traits || !traits->dequantize || !canQuantize(type))
            return Error{"cannot measure " + typeName(type) + ": no quantizer for it in this build", Error::kNoOffset, {}};
        if (refusedWithoutImatrix(type) && !options.importance)
            return Error{typeName(type) + " needs an importance matrix", Error::kNoOffset, {}};
    }

    ErrorTable table;
    table.weighted = bool(options.importance);
    std::vector<const TensorInfo*> ordered;
    for (const TensorInfo& tensor : model.tensors()) {
        table.totalElements += tensor.elementCount();
        ordered.push_back(&tensor);
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const TensorInfo* a, const TensorInfo* b) { return llamaTensorOrderLess(a->name, b->name); });
    for (const TensorInfo* tensor : ordered) {
        if (!tensor->traits)
            return Error{"tensor '" + std::string(tensor->name) + "' has " + typeName(tensor->typeId) + ", whose size is unknown",
                         tensor->infoOffset, model.shards()[tensor->shard]->path()};
        if (!llamaQuantizeAllows(tensor->name, tensor->nDims) || !tensor->traits->dequantize || tensor->ne[0] <= 0) {
            table.kept.push_back(tensor);
            continue;
        }
        TensorErrors errors;
        errors.tensor = tensor;
        // A tensor the imatrix has no weights for (token_embd, output) cannot get the types that
        // need them: llama-quantize refuses ("missing importance matrix"), ggml cannot make them.
        const bool hasWeights = options.importance && !options.importance(tensor->name, 0).empty();
        errors.weighted = hasWeights;
        for (const std::uint32_t type : candidates) {
            const TypeTraits& traits = *findType(type);
            if (tensor->ne[0] % traits.blockSize != 0)
                continue;
            if (refusedWithoutImatrix(type) && !hasWeights)
                continue;
            errors.choices.push_back({type, tensor->rowCount() * (static_cast<std::uint64_t>(tensor->ne[0]) / traits.blockSize * traits.blockBytes), 0.0});
        }
        if (errors.choices.empty()) {
            table.kept.push_back(tensor);
            continue;
        }
        errors.sampledRows = std::min<std::uint64_t>(tensor->rowCount(), std::max<std::size_t>(options.sampleRows, 1));
        table.tensors.push_back(std::move(errors));
    }

    std::vector<SampleTask> tasks;
    for (std::size_t t = 0; t < table.tensors.size(); ++t)
        for (std::uint64_t s = 0; s < table.tensors[t].sampledRows; s += kSamplesPerTask)
            tasks.push_back({t, s, std::min(kSamplesPerTask, table.tensors[t].sampledRows - s)});
    std::uint64_t totalSamples = 0;
    for (const TensorErrors& errors : table.tensors)
        totalSamples += errors.sampledRows;

    // Per task and choice: the sampled rows' error; summed per tensor in task order afterwards.
    std::vector<std::vector<double>> taskErrors(tasks.size());
    std::vector<double> taskEnergy(tasks.size(), 0.0);
    std::vector<Status> taskStatus(tasks.size(), Ok{});
    std::atomic<std::uint64_t> samplesDone{0};
    std::atomic<bool> failed{false};
    // Bounded batches keep progress and cancel responsive without a lock per row.
    const std::size_t batch = std::max<std::size_t>(executorThreads(options.executor) * 8, 1);
    for (std::size_t first = 0; first < tasks.size() && !failed; first += batch) {
        const std::size_t count = std::min(batch, tasks.size() - first);
        runTasks(options.executor, count, [&](std::size_t k) {
            const std::size_t index = first + k;
            if (failed.load() || (options.cancel && options.cancel->load()))
                return;
            const SampleTask& task = tasks[index];
            const TensorErrors& errors = table.tensors[task.tensor];
            const TensorInfo& tensor = *errors.tensor;
            const auto rowLength = static_cast<std::size_t>(tensor.ne[0]);
            std::vector<float> row(rowLength), back(rowLength);
            std::vector<std::uint8_t> packed;
            std::vector<float> weights;
            std::size_t weightsExpert = SIZE_MAX;
            std::vector<double>& sums = taskErrors[index];
            sums.assign(errors.choices.size(), 0.0);
            const std::uint64_t rowsPerExpert = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[1], 1));
            for (std::uint64_t s = task.firstSample; s < task.firstSample + task.sampleCount; ++s) {
                const std::uint64_t r = sampledRow(s, errors.sampledRows, tensor.rowCount());
                if (Status st = dequantizeRows(tensor, r, r + 1, row); !st) {
                    taskStatus[index] = st;
                    failed = true;
                    return;
                }
                const std::size_t expert = static_cast<std::size_t>(r / rowsPerExpert);
                if (options.importance && expert != weightsExpert) {
                    weights = options.importance(tensor.name, expert);
                    weightsExpert = expert;
                    if (!weights.empty() && weights.size() != rowLength)
                        weights.clear();
                }
                double energy = 0.0;
                for (std::size_t i = 0; i < rowLength; ++i)
                    energy += (weights.empty() ? 1.0 : double(weights[i])) * double(row[i]) * double(row[i]);
                taskEnergy[index] += energy;
                for (std::size_t c = 0; c < errors.choices.size(); ++c) {
                    const TypeTraits& traits = *findType(errors.choices[c].typeId);
                    packed.resize(rowLength / traits.blockSize * traits.blockBytes);
                    if (Status st = quantizeRows(traits.id, row, static_cast<std::int64_t>(rowLength), weights, packed); !st) {
                        taskStatus[index] = st;
                        failed = true;
                        return;
                    }
                    traits.dequantize(packed.data(), back.data(), rowLength / traits.blockSize);
                    double sum = 0.0;
                    for (std::size_t i = 0; i < rowLength; ++i) {
                        const double d = double(back[i]) - double(row[i]);
                        sum += (weights.empty() ? 1.0 : double(weights[i])) * d * d;
                    }
                    sums[c] += sum;
                }
            }
            samplesDone += task.sampleCount;
        });
        for (std::size_t k = 0; k < count; ++k)
            if (!taskStatus[first + k])
                return taskStatus[first + k].error();
        if (options.progress)
            options.progress(samplesDone.load(), totalSamples);
        if (options.cancel && options.cancel->load())
            return Error{"error measurement cancelled", Error::kNoOffset, {}};
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        TensorErrors& errors = table.tensors[tasks[i].tensor];
        for (std::size_t c = 0; c < errors.choices.size(); ++c)
            errors.choices[c].error += taskErrors[i][c];
        errors.energy += taskEnergy[i];
    }
    for (TensorErrors& errors : table.tensors) {
        const double scale = double(errors.tensor->rowCount()) / double(errors.sampledRows);
        for (TypeChoice& choice : errors.choices)
            choice.error *= scale;
        errors.energy *= scale;
        // The planner's figure is the relative error: dimensionless, so tensors with importance
        // weights and tensors without them (token_embd, output) are figures of one kind and can
        // be summed. Their absolute errors are not: a weighted one is in squared activations, an
        // unweighted one in squared weights, and their sum pushed the unweighted tensors to the
        // lowest types.
        for (TypeChoice& choice : errors.choices)
            choice.cost = errors.energy > 0 ? choice.error / errors.energy : choice.error;
    }
    if (Status unchanged = model.checkUnchanged(); !unchanged)
        return unchanged.error();
    return table;
}

}  // namespace gguf
