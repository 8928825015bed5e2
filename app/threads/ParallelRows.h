#pragma once
// The thread pool of the programs that are not the GUI (the CLI, the bench, the test suites): a
// TaskExecutor for the core calls that take one. Core never starts a thread; the GUI's executor is
// its job pool (ui/session/JobPoolExecutor.h).

#include "core/base/RowRanges.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gguf {

class ParallelRows : public TaskExecutor {
public:
    // `threadCount` threads in all: threadCount - 1 workers plus whichever thread calls run().
    explicit ParallelRows(unsigned threadCount = machineThreadCount());
    ~ParallelRows() override;
    ParallelRows(const ParallelRows&) = delete;
    ParallelRows& operator=(const ParallelRows&) = delete;

    unsigned threadCount() const override { return static_cast<unsigned>(m_workers.size()) + 1; }
    // Why fewer threads than asked for run (the system refused one); empty when all started.
    const std::string& startError() const { return m_startError; }

    // Calls task(i) once for every i in [0, taskCount), spread over the workers and the calling
    // thread, which takes part; tasks are handed out in order. Returns when all have finished.
    // One run at a time: a concurrent call waits for the pool, and a call from inside a task runs
    // its tasks inline on that thread (so nesting cannot deadlock). Tasks must not throw.
    void run(std::size_t taskCount, const std::function<void(std::size_t task)>& task) override;

    // run() over planned ranges: task(range).
    void forEachRange(const std::vector<RowRange>& ranges, const std::function<void(RowRange range)>& task);

    // The process-wide pool, created on first use with machineThreadCount() threads.
    static ParallelRows& shared();

private:
    void workerLoop();
    void drain();

    std::vector<std::thread> m_workers;
    std::mutex m_runMutex;  // one run() at a time
    std::mutex m_mutex;     // guards everything below
    std::condition_variable m_wake;
    std::condition_variable m_finished;
    const std::function<void(std::size_t)>* m_task = nullptr;
    std::size_t m_taskCount = 0;
    std::size_t m_nextTask = 0;
    std::size_t m_busyWorkers = 0;
    std::uint64_t m_generation = 0;  // bumped per run, so a worker joins each run once
    bool m_stopping = false;
    std::string m_startError;
};

}  // namespace gguf
