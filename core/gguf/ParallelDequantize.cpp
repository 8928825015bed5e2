#include "core/gguf/ParallelDequantize.h"

#include "core/gguf/Dequantize.h"
#include "core/types/GgmlType.h"

#include <functional>
#include <mutex>
#include <optional>

namespace gguf {

namespace {

// piece(range) for every range on the pool; the first error any piece reports wins.
Status runPieces(TaskExecutor* executor, const std::vector<RowRange>& ranges, const std::function<Status(RowRange)>& piece)
{
    std::mutex errorMutex;
    std::optional<Error> firstError;
    forEachRange(executor, ranges, [&](RowRange range) {
        if (Status s = piece(range); !s) {
            const std::lock_guard lock(errorMutex);
            if (!firstError)
                firstError = s.error();
        }
    });
    if (firstError)
        return *firstError;
    return Ok{};
}

}  // namespace

Status dequantizeRowsParallel(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::span<float> out,
                              TaskExecutor* executor, WeightValues values)
{
    // Argument errors are reported exactly as dequantizeRows reports them.
    const auto rowLength = static_cast<std::uint64_t>(tensor.ne[0]);
    if (rowBegin > rowEnd || rowEnd > tensor.rowCount() || out.size() != (rowEnd - rowBegin) * rowLength || rowBegin == rowEnd)
        return dequantizeRows(tensor, rowBegin, rowEnd, out, values);
    return runPieces(executor, planRowRanges(rowBegin, rowEnd, executorThreads(executor)), [&](RowRange rows) {
        const auto offset = static_cast<std::size_t>((rows.begin - rowBegin) * rowLength);
        const auto count = static_cast<std::size_t>(rows.size() * rowLength);
        return dequantizeRows(tensor, rows.begin, rows.end, out.subspan(offset, count), values);
    });
}

Status dequantizeElementsParallel(const TensorInfo& tensor, std::uint64_t begin, std::uint64_t end, std::span<float> out,
                                  TaskExecutor* executor, WeightValues values)
{
    const std::uint64_t blockSize = tensor.traits && tensor.traits->dequantize ? tensor.traits->blockSize : 0;
    // Anything dequantizeElements would refuse, it refuses here too, with its own message.
    if (blockSize == 0 || begin >= end || end > tensor.elementCount() || begin % blockSize != 0 || end % blockSize != 0 || out.size() != end - begin)
        return dequantizeElements(tensor, begin, end, out, values);
    return runPieces(executor, planRowRanges(begin / blockSize, end / blockSize, executorThreads(executor)), [&](RowRange blocks) {
        const std::uint64_t first = blocks.begin * blockSize;
        const std::uint64_t last = blocks.end * blockSize;
        return dequantizeElements(tensor, first, last, out.subspan(static_cast<std::size_t>(first - begin), static_cast<std::size_t>(last - first)),
                                  values);
    });
}

}  // namespace gguf
