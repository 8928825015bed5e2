#pragma once
// Timing and memory probes for the benchmark. Throughput figures are medians of repeated runs
// (this machine is a shared VM: the median shrugs off the odd slow run that a mean would not).

#include <cstdint>
#include <functional>

namespace bench {

struct RepeatPolicy {
    int minRuns = 5;
    int maxRuns = 40;
    double minSeconds = 0.3;  // keep repeating until this much time was measured
};

// Median seconds per run: wall clock, and CPU time of the calling thread. On a busy machine the
// CPU time of a single-threaded run still shows what the work costs; the wall clock does not.
struct Timing {
    double wall = 0;
    double cpu = 0;
};

// Runs `work` once to warm up, then repeatedly per `policy`; `prepare`, when given, runs before
// every run, untimed.
Timing measure(const std::function<void()>& work, const RepeatPolicy& policy, const std::function<void()>& prepare = {});
inline double medianSeconds(const std::function<void()>& work, const RepeatPolicy& policy, const std::function<void()>& prepare = {})
{
    return measure(work, policy, prepare).wall;
}

// Writes `bytes` at `data` back to memory and drops them from every cache level (x86: clflush;
// elsewhere nothing). Timed runs start this way, as data read from a 100 GB file would: on a
// machine whose last-level cache holds the whole 64 MiB buffer, a repeated memset would
// otherwise measure the cache, not memory.
void evictFromCache(const void* data, std::uint64_t bytes);

double nowSeconds();        // monotonic
double threadCpuSeconds();  // CPU time of the calling thread

// Resident set size of this process, and its peak since the last resetPeakResident(), in bytes
// (from /proc/self/status). resetPeakResident() returns false where the kernel cannot reset it.
std::uint64_t residentBytes();
std::uint64_t peakResidentBytes();
bool resetPeakResident();

// 1-, 5- and 15-minute load averages, to tell a reader whether other work shared the machine.
struct LoadAverage {
    double one = 0;
    double five = 0;
    double fifteen = 0;
};
LoadAverage loadAverage();

}  // namespace bench
