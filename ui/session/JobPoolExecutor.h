#pragma once
// The job pool as a core TaskExecutor: core calls that take an executor (a conversion, a diff,
// an error table) run their tasks on the GUI's one pool instead of threads of their own. The
// calling thread (itself a pool thread, inside a job) takes part and runs whatever no helper has
// taken, so a busy pool slows such a call down but can never deadlock it.

#include "core/base/TaskExecutor.h"

class JobPoolExecutor : public gguf::TaskExecutor {
public:
    static JobPoolExecutor& instance();

    unsigned threadCount() const override;
    void run(std::size_t taskCount, const std::function<void(std::size_t task)>& task) override;
};
