#pragma once
// What every throughput case shares: the output buffer (allocated and touched once, so page
// faults are never timed), a source of the same size for the memcpy baseline, the thread pool,
// and the memset / memcpy baselines measured right before each case with the same threads.

#include "Measure.h"
#include "app/threads/ParallelRows.h"

#include <cstdint>
#include <memory>
#include <span>

namespace bench {

struct Baselines {
    double memsetGbps = 0;
    double memcpyGbps = 0;
    double memsetCpuGbps = 0;  // per CPU-second of the calling thread (meaningful for 1 thread)
};

class Workspace {
public:
    Workspace(std::uint64_t elements, RepeatPolicy policy);
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    std::uint64_t elements() const { return m_elements; }
    std::span<float> output() { return {m_output, static_cast<std::size_t>(m_elements)}; }
    gguf::ParallelRows& pool() { return m_pool; }
    unsigned allThreads() const { return m_pool.threadCount(); }
    const RepeatPolicy& policy() const { return m_policy; }

    // memset and memcpy of the whole output, split over `threads` threads like the cases are,
    // each run starting with its buffers out of cache.
    Baselines measureBaselines(unsigned threads);
    void evictOutput() const;
    // `work(part, parts)` on `threads` threads (1: the calling thread alone).
    void onThreads(unsigned threads, const std::function<void(unsigned part, unsigned parts)>& work);

private:
    std::uint64_t m_elements;
    RepeatPolicy m_policy;
    float* m_output;
    float* m_source;
    gguf::ParallelRows m_pool;
};

}  // namespace bench
