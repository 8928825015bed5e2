#include "core/base/ParallelRows.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <system_error>

namespace gguf {

namespace {
// Set while a thread executes tasks of some pool: a nested run() from there goes inline.
thread_local bool t_insideTask = false;
}

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
    return std::max(1u, std::thread::hardware_concurrency());
}

ParallelRows::ParallelRows(unsigned threadCount)
{
    const unsigned workers = std::max(threadCount, 1u) - 1;
    m_workers.reserve(workers);
    // The system may refuse threads (a ulimit, memory): keep the ones started and say why, for
    // callers that want every thread they asked for (startError()). Throwing from here would
    // destroy joinable threads, which terminates the process.
    try {
        for (unsigned i = 0; i < workers; ++i)
            m_workers.emplace_back([this] { workerLoop(); });
    } catch (const std::system_error& error) {
        m_startError = "cannot start thread " + std::to_string(m_workers.size() + 2) + " of " + std::to_string(workers + 1)
                     + ": " + error.what();
    }
}

ParallelRows::~ParallelRows()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (std::thread& worker : m_workers)
        worker.join();
}

ParallelRows& ParallelRows::shared()
{
    static ParallelRows pool;
    return pool;
}

// Takes tasks of the current run until none are left. Called with m_mutex unlocked.
void ParallelRows::drain()
{
    const bool wasInside = t_insideTask;
    t_insideTask = true;
    std::unique_lock lock(m_mutex);
    while (m_nextTask < m_taskCount) {
        const std::size_t task = m_nextTask++;
        const auto& function = *m_task;
        lock.unlock();
        function(task);
        lock.lock();
    }
    t_insideTask = wasInside;
}

void ParallelRows::workerLoop()
{
    std::uint64_t seen = 0;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
        if (m_stopping)
            return;
        seen = m_generation;
        ++m_busyWorkers;
        lock.unlock();
        drain();
        lock.lock();
        if (--m_busyWorkers == 0)
            m_finished.notify_all();
    }
}

void ParallelRows::run(std::size_t taskCount, const std::function<void(std::size_t task)>& task)
{
    if (taskCount == 0)
        return;
    if (m_workers.empty() || taskCount == 1 || t_insideTask) {
        for (std::size_t i = 0; i < taskCount; ++i)
            task(i);
        return;
    }
    const std::lock_guard runLock(m_runMutex);
    {
        const std::lock_guard lock(m_mutex);
        m_task = &task;
        m_taskCount = taskCount;
        m_nextTask = 0;
        ++m_generation;
    }
    m_wake.notify_all();
    drain();
    // Tasks are all taken; wait for workers still finishing theirs (or not yet woken: they find
    // nothing left and leave at once) before `task` goes out of scope.
    std::unique_lock lock(m_mutex);
    m_finished.wait(lock, [&] { return m_busyWorkers == 0; });
    m_task = nullptr;
    m_taskCount = 0;
}

void ParallelRows::forEachRange(const std::vector<RowRange>& ranges, const std::function<void(RowRange range)>& task)
{
    run(ranges.size(), [&](std::size_t i) { task(ranges[i]); });
}

}  // namespace gguf
