#include "forward/SimulatedQuantization.h"

#include "quantize/QuantizationPolicy.h"
#include "quantize/Quantize.h"
#include "types/GgmlType.h"

#include <atomic>
#include <mutex>

namespace gguf {

WeightTransform simulatedQuantization(std::uint32_t targetType, ParallelRows& pool)
{
    return [targetType, &pool](const TensorInfo& tensor, std::uint64_t, std::span<float> values) -> Status {
        const TensorTarget target = chooseTensorTarget(tensor, targetType);
        if (!target.quantize)
            return Ok{};
        const TypeTraits* type = findType(target.typeId);
        if (!type || !type->dequantize)
            return Error{"cannot simulate type " + typeName(target.typeId), Error::kNoOffset, {}};
        const auto columns = static_cast<std::uint64_t>(tensor.ne[0]);
        const std::uint64_t rows = values.size() / columns;
        const std::uint64_t rowBytes = quantizedSize(*type, columns);
        std::mutex failureLock;
        std::optional<Error> failure;
        pool.forEachRange(planRowRanges(0, rows, pool.threadCount()), [&](RowRange range) {
            std::vector<std::uint8_t> bytes(range.size() * rowBytes);
            const auto piece = values.subspan(range.begin * columns, range.size() * columns);
            if (Status s = quantizeValues(target.typeId, piece, bytes); !s) {
                std::lock_guard lock(failureLock);
                failure = s.error();
                return;
            }
            type->dequantize(bytes.data(), piece.data(), piece.size() / type->blockSize);
        });
        if (failure)
            return *failure;
        return Ok{};
    };
}

}  // namespace gguf
