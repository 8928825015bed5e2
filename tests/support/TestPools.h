#pragma once
// Executors of a given thread count for core calls that take one (TaskExecutor), alive for the
// whole test process, so options built by a helper can point at them.

#include "app/threads/ParallelRows.h"

#include <map>
#include <memory>

namespace testsupport {

inline gguf::ParallelRows& poolOf(unsigned threads)
{
    static std::map<unsigned, std::unique_ptr<gguf::ParallelRows>> pools;
    std::unique_ptr<gguf::ParallelRows>& pool = pools[threads];
    if (!pool)
        pool = std::make_unique<gguf::ParallelRows>(threads);
    return *pool;
}

}  // namespace testsupport
