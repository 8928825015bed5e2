#pragma once
// Splitting row ranges across the machine's cores. The row-range functions of the core
// (dequantizeRows, reduceHeatmapRows, ...) are the units of work; planRowRanges() cuts a range
// into pieces for them, and ParallelRows runs the pieces on a small pool of worker threads plus
// the calling thread. The CLI uses ParallelRows::shared(); the GUI submits the same planned
// ranges to its job pool instead. A ParallelRows is a TaskExecutor for core calls that take one.

#include "core/base/TaskExecutor.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
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

// Threads worth running: the cores available to this process, or GGUFX_THREADS (a positive
// whole number) when set.
unsigned machineThreadCount();

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
