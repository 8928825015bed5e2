#pragma once
// Cutting row ranges into units of work. The row-range functions of the core (dequantizeRows,
// reduceHeatmapRows, ...) are the units; planRowRanges() cuts a range into pieces for them, and
// forEachRange() hands the pieces to the caller's executor (TaskExecutor.h). Core never starts a
// thread: the CLI runs the pieces on its ParallelRows (app/threads), the GUI on its job pool.

#include "core/base/TaskExecutor.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gguf {

struct RowRange {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;  // exclusive
    std::uint64_t size() const { return end - begin; }
    bool operator==(const RowRange&) const = default;
};

// [begin, end) cut into at most `parts` contiguous ranges whose sizes differ by at most one, in
// order, none empty (no ranges for an empty input).
std::vector<RowRange> planRowRanges(std::uint64_t begin, std::uint64_t end, std::size_t parts);

// [begin, end) cut into consecutive ranges of `rowsPerRange` rows (the last may be shorter), for
// work whose result must not depend on how many threads ran it.
std::vector<RowRange> fixedRowRanges(std::uint64_t begin, std::uint64_t end, std::uint64_t rowsPerRange);

// Threads worth running: the cores this process may run on (its CPU affinity), or GGUFX_THREADS
// (a positive whole number) when set. What executors are sized by; core itself starts none.
unsigned machineThreadCount();

// task(range) for every range, on `executor` (null: in order on the calling thread).
void forEachRange(TaskExecutor* executor, const std::vector<RowRange>& ranges, const std::function<void(RowRange range)>& task);

}  // namespace gguf
