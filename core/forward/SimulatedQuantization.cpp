#include "core/forward/SimulatedQuantization.h"

#include "core/base/RowRanges.h"
#include "core/gguf/ParallelDequantize.h"
#include "core/quantize/QuantizationPolicy.h"
#include "core/quantize/Quantize.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <mutex>
#include <optional>

namespace gguf {

namespace {

// The type the simulation gives `tensor`, or nothing when it is kept as stored.
std::optional<std::uint32_t> simulatedTypeOf(const SimulationSpec& spec, const TensorInfo& tensor)
{
    if (spec.recipeTypes) {
        const auto found = spec.recipeTypes->find(std::string(tensor.name));
        if (found == spec.recipeTypes->end())
            return std::nullopt;
        return found->second;
    }
    const TensorTarget target = chooseTensorTarget(tensor, spec.targetType);
    if (!target.quantize)
        return std::nullopt;
    return target.typeId;
}

// Rows [rowBegin, rowEnd) of `tensor` dequantized and quantized to `typeId` into `bytes`, on
// `executor`, each expert's rows with that expert's importance weights.
Status encodeRows(const SimulationSpec& spec, TaskExecutor* executor, const TensorInfo& tensor, std::uint32_t typeId,
                  std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<std::uint8_t>& bytes)
{
    const TypeTraits* type = findType(typeId);
    if (!type || !type->dequantize || !canQuantize(typeId))
        return Error{"cannot simulate type " + typeName(typeId) + " (" + std::string(tensor.name) + ")", Error::kNoOffset, {}};
    const auto columns = static_cast<std::uint64_t>(tensor.ne[0]);
    if (columns == 0 || columns % type->blockSize != 0)
        return Error{"cannot simulate " + typeName(typeId) + " for " + std::string(tensor.name) + ": rows of " + std::to_string(columns)
                         + " values do not fill its blocks",
                     Error::kNoOffset, {}};
    const std::uint64_t rows = rowEnd - rowBegin;
    std::vector<float> dequantized(rows * columns);
    // The stored values: the simulated tensor keeps the weight's companion scale, as a converter
    // keeps the scale tensor, and the pass applies it to the products.
    if (Status done = dequantizeRowsParallel(tensor, rowBegin, rowEnd, dequantized, executor, WeightValues::Stored); !done)
        return done;
    const std::span<const float> values = dequantized;
    const std::uint64_t rowBytes = quantizedSize(*type, columns);
    bytes.resize(rows * rowBytes);
    // Importance weights belong to one expert (a slice of ne[1] rows): ranges never cross one.
    const std::uint64_t rowsPerExpert = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[1], 1));
    std::vector<RowRange> ranges;
    for (const RowRange& range : planRowRanges(0, rows, executorThreads(executor))) {
        std::uint64_t begin = range.begin;
        while (begin < range.end) {
            const std::uint64_t expertEnd = ((rowBegin + begin) / rowsPerExpert + 1) * rowsPerExpert - rowBegin;
            const std::uint64_t end = std::min(range.end, expertEnd);
            ranges.push_back({begin, end});
            begin = end;
        }
    }
    std::mutex failureLock;
    std::optional<Error> failure;
    forEachRange(executor, ranges, [&](RowRange range) {
        const auto piece = values.subspan(range.begin * columns, range.size() * columns);
        const auto out = std::span<std::uint8_t>(bytes).subspan(range.begin * rowBytes, range.size() * rowBytes);
        std::vector<float> weights;
        if (spec.importance) {
            weights = spec.importance(tensor.name, static_cast<std::size_t>((rowBegin + range.begin) / rowsPerExpert));
            if (!weights.empty() && weights.size() != columns) {
                std::lock_guard lock(failureLock);
                failure = Error{"importance weights for " + std::string(tensor.name) + " have " + std::to_string(weights.size())
                                    + " values, its rows " + std::to_string(columns),
                                Error::kNoOffset, {}};
                return;
            }
        }
        Status s = quantizeRows(typeId, piece, static_cast<std::int64_t>(columns), weights, out);
        if (!s) {
            std::lock_guard lock(failureLock);
            failure = Error{std::string(tensor.name) + ": " + s.error().message, Error::kNoOffset, {}};
        }
    });
    if (failure)
        return *failure;
    return Ok{};
}

}  // namespace

WeightTransform simulatedQuantization(std::uint32_t targetType, TaskExecutor* executor)
{
    SimulationSpec spec;
    spec.targetType = targetType;
    return simulatedQuantization(std::move(spec), executor);
}

WeightTransform simulatedQuantization(SimulationSpec spec, TaskExecutor* executor)
{
    return WeightTransform::encoding(
        [spec, executor](const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<std::uint8_t>& blocks) {
            const std::optional<std::uint32_t> typeId = simulatedTypeOf(spec, tensor);
            if (!typeId)
                return Status{Error{std::string(tensor.name) + " is not simulated", Error::kNoOffset, {}}};
            return encodeRows(spec, executor, tensor, *typeId, rowBegin, rowEnd, blocks);
        },
        [spec](const TensorInfo& tensor) { return simulatedTypeOf(spec, tensor); });
}

}  // namespace gguf
