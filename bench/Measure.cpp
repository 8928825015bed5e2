#include "Measure.h"

#include <algorithm>
#include <chrono>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ctime>
#include <string>
#include <vector>

namespace bench {

double nowSeconds()
{
    using Clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double threadCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

namespace {
double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}
}  // namespace

void evictFromCache(const void* data, std::uint64_t bytes)
{
#if defined(__x86_64__) || defined(__i386__)
    const auto* bytesAt = static_cast<const char*>(data);
    for (std::uint64_t offset = 0; offset < bytes; offset += 64)
        _mm_clflush(bytesAt + offset);
    if (bytes > 0)
        _mm_clflush(bytesAt + bytes - 1);
    _mm_mfence();
#else
    (void)data;
    (void)bytes;
#endif
}

Timing measure(const std::function<void()>& work, const RepeatPolicy& policy, const std::function<void()>& prepare)
{
    if (prepare)
        prepare();
    work();
    std::vector<double> wall;
    std::vector<double> cpu;
    double total = 0;
    while (static_cast<int>(wall.size()) < policy.minRuns || (total < policy.minSeconds && static_cast<int>(wall.size()) < policy.maxRuns)) {
        if (prepare)
            prepare();
        const double startCpu = threadCpuSeconds();
        const double start = nowSeconds();
        work();
        wall.push_back(nowSeconds() - start);
        cpu.push_back(threadCpuSeconds() - startCpu);
        total += wall.back();
    }
    return {median(wall), median(cpu)};
}

namespace {
// A "Name:   123 kB" line of /proc/self/status, in bytes; 0 when absent.
std::uint64_t statusKilobytes(const char* name)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::size_t length = std::strlen(name);
    while (std::getline(status, line)) {
        if (line.compare(0, length, name) == 0 && line.size() > length && line[length] == ':')
            return std::stoull(line.substr(length + 1)) * 1024;
    }
    return 0;
}
}  // namespace

std::uint64_t residentBytes() { return statusKilobytes("VmRSS"); }
std::uint64_t peakResidentBytes() { return statusKilobytes("VmHWM"); }

bool resetPeakResident()
{
    // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+).
    std::FILE* file = std::fopen("/proc/self/clear_refs", "w");
    if (!file)
        return false;
    const bool written = std::fputs("5", file) >= 0;
    return std::fclose(file) == 0 && written;
}

LoadAverage loadAverage()
{
    LoadAverage load;
    if (std::FILE* file = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(file, "%lf %lf %lf", &load.one, &load.five, &load.fifteen) != 3)
            load = {};
        std::fclose(file);
    }
    return load;
}

}  // namespace bench
