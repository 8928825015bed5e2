#include "app/threads/ParallelRows.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <system_error>

namespace gguf {

namespace {
// Set while a thread executes tasks of some pool: a nested run() from there goes inline.
thread_local bool t_insideTask = false;
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
    gguf::forEachRange(this, ranges, task);
}

}  // namespace gguf
