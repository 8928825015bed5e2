#include "core/base/RowRanges.h"

#include <algorithm>
#include <cstdlib>

#include <sched.h>
#include <unistd.h>

namespace gguf {

std::vector<RowRange> planRowRanges(std::uint64_t begin, std::uint64_t end, std::size_t parts)
{
    std::vector<RowRange> ranges;
    if (end <= begin || parts == 0)
        return ranges;
    const std::uint64_t total = end - begin;
    const std::uint64_t count = std::min<std::uint64_t>(parts, total);
    ranges.reserve(static_cast<std::size_t>(count));
    const std::uint64_t base = total / count;
    const std::uint64_t longer = total % count;  // the first `longer` ranges get one row more
    std::uint64_t at = begin;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t size = base + (i < longer ? 1 : 0);
        ranges.push_back({at, at + size});
        at += size;
    }
    return ranges;
}

std::vector<RowRange> fixedRowRanges(std::uint64_t begin, std::uint64_t end, std::uint64_t rowsPerRange)
{
    std::vector<RowRange> ranges;
    const std::uint64_t step = std::max<std::uint64_t>(rowsPerRange, 1);
    for (std::uint64_t at = begin; at < end; at += std::min(step, end - at))
        ranges.push_back({at, std::min(end, at + step)});
    return ranges;
}

unsigned machineThreadCount()
{
    if (const char* text = std::getenv("GGUFX_THREADS")) {
        char* rest = nullptr;
        const long requested = std::strtol(text, &rest, 10);
        if (rest != text && *rest == '\0' && requested > 0 && requested <= 1024)
            return static_cast<unsigned>(requested);
    }
    // The affinity mask, not the machine's core count: under taskset, a cpuset cgroup or a CI
    // runner's CPU limit only those cores run this process.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
        return static_cast<unsigned>(std::max(1, CPU_COUNT(&allowed)));
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<unsigned>(online) : 1u;
}

void forEachRange(TaskExecutor* executor, const std::vector<RowRange>& ranges, const std::function<void(RowRange range)>& task)
{
    runTasks(executor, ranges.size(), [&](std::size_t i) { task(ranges[i]); });
}

}  // namespace gguf
