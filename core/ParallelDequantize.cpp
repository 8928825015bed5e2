#include "ParallelDequantize.h"

#include "Dequantize.h"

#include <mutex>
#include <optional>

namespace gguf {

Status dequantizeRowsParallel(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::span<float> out,
                              ParallelRows& pool)
{
    // Argument errors are reported exactly as dequantizeRows reports them.
    const auto rowLength = static_cast<std::uint64_t>(tensor.ne[0]);
    if (rowBegin > rowEnd || rowEnd > tensor.rowCount() || out.size() != (rowEnd - rowBegin) * rowLength || rowBegin == rowEnd)
        return dequantizeRows(tensor, rowBegin, rowEnd, out);

    const std::vector<RowRange> ranges = planRowRanges(rowBegin, rowEnd, pool.threadCount());
    std::mutex errorMutex;
    std::optional<Error> firstError;
    pool.forEachRange(ranges, [&](RowRange range) {
        const auto offset = static_cast<std::size_t>((range.begin - rowBegin) * rowLength);
        const auto count = static_cast<std::size_t>(range.size() * rowLength);
        if (Status s = dequantizeRows(tensor, range.begin, range.end, out.subspan(offset, count)); !s) {
            const std::lock_guard lock(errorMutex);
            if (!firstError)
                firstError = s.error();
        }
    });
    if (firstError)
        return *firstError;
    return Ok{};
}

}  // namespace gguf
