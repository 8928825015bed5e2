#include "ui/session/JobPoolExecutor.h"

#include "ui/session/JobPool.h"

#include <QThreadPool>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

JobPoolExecutor& JobPoolExecutor::instance()
{
    static JobPoolExecutor executor;
    return executor;
}

unsigned JobPoolExecutor::threadCount() const
{
    return static_cast<unsigned>(std::max(1, jobPool()->maxThreadCount()));
}

void JobPoolExecutor::run(std::size_t taskCount, const std::function<void(std::size_t task)>& task)
{
    if (taskCount == 0)
        return;
    // Helpers that start after every task was taken find nothing to do and never touch `task`,
    // which lives only until this call returns; the state itself lives as long as any helper.
    struct State {
        const std::function<void(std::size_t)>* task = nullptr;
        std::size_t count = 0;
        std::atomic<std::size_t> next{0};
        std::mutex mutex;
        std::condition_variable allDone;
        std::size_t finished = 0;  // guarded by mutex
    };
    auto state = std::make_shared<State>();
    state->task = &task;
    state->count = taskCount;
    const auto drain = [](State& s) {
        std::size_t ran = 0;
        for (std::size_t i; (i = s.next.fetch_add(1)) < s.count; ++ran)
            (*s.task)(i);
        if (ran == 0)
            return;
        const std::lock_guard lock(s.mutex);
        s.finished += ran;
        if (s.finished == s.count)
            s.allDone.notify_all();
    };
    const std::size_t helpers = std::min<std::size_t>(taskCount, threadCount()) - 1;
    const JobPriority priority = currentJobPriority();  // helpers queue as their job does
    for (std::size_t h = 0; h < helpers; ++h)
        jobPool()->start(
            [state, drain, priority]() {
                yieldToGuiThread();
                setCurrentJobPriority(priority);
                drain(*state);
            },
            static_cast<int>(priority));
    drain(*state);
    std::unique_lock lock(state->mutex);
    state->allDone.wait(lock, [&] { return state->finished == state->count; });
}
