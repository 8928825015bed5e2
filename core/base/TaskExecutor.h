#pragma once
// Where core work runs. Core cuts its work into tasks and never starts a thread: the caller hands
// it an executor, so one process has one pool. The CLI passes a ParallelRows (app/threads: the
// shared one, sized by GGUFX_THREADS, or one of --threads threads), the GUI its job pool; no
// executor means the calling thread alone. Results never depend on which executor ran the tasks.

#include <cstddef>
#include <functional>

namespace gguf {

class TaskExecutor {
public:
    virtual ~TaskExecutor() = default;
    // How many tasks may run at the same time: what callers size per-thread buffers by.
    virtual unsigned threadCount() const = 0;
    // Calls task(i) once for every i in [0, taskCount), in parallel where it can, and returns when
    // all have finished. The calling thread may take part. Tasks must not throw.
    virtual void run(std::size_t taskCount, const std::function<void(std::size_t task)>& task) = 0;
};

// runTasks(executor, ...) with a null executor runs the tasks in order on the calling thread.
inline void runTasks(TaskExecutor* executor, std::size_t taskCount, const std::function<void(std::size_t task)>& task)
{
    if (executor) {
        executor->run(taskCount, task);
        return;
    }
    for (std::size_t i = 0; i < taskCount; ++i)
        task(i);
}
inline unsigned executorThreads(const TaskExecutor* executor)
{
    return executor ? executor->threadCount() : 1u;
}

}  // namespace gguf
