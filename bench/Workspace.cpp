#include "Workspace.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace bench {

namespace {
float* allocateTouched(std::uint64_t elements)
{
    const std::size_t bytes = (static_cast<std::size_t>(elements) * sizeof(float) + 4095) / 4096 * 4096;
    auto* memory = static_cast<float*>(std::aligned_alloc(4096, bytes));
    if (!memory)
        throw std::bad_alloc();
    std::memset(memory, 0, bytes);
    return memory;
}
}  // namespace

Workspace::Workspace(std::uint64_t elements, RepeatPolicy policy)
    : m_elements(elements), m_policy(policy), m_output(allocateTouched(elements)), m_source(allocateTouched(elements))
{
}

Workspace::~Workspace()
{
    std::free(m_output);
    std::free(m_source);
}

void Workspace::evictOutput() const
{
    evictFromCache(m_output, m_elements * sizeof(float));
}

void Workspace::onThreads(unsigned threads, const std::function<void(unsigned part, unsigned parts)>& work)
{
    if (threads <= 1) {
        work(0, 1);
        return;
    }
    m_pool.run(threads, [&](std::size_t part) { work(static_cast<unsigned>(part), threads); });
}

Baselines Workspace::measureBaselines(unsigned threads)
{
    const double bytes = static_cast<double>(m_elements) * sizeof(float);
    auto part = [this](unsigned index, unsigned parts) {
        const std::uint64_t begin = m_elements * index / parts;
        const std::uint64_t end = m_elements * (index + 1) / parts;
        return std::pair{begin, (end - begin) * sizeof(float)};
    };
    Baselines baselines;
    const Timing memset = measure(
        [&] {
            onThreads(threads, [&](unsigned index, unsigned parts) {
                const auto [begin, length] = part(index, parts);
                std::memset(m_output + begin, 0, length);
            });
        },
        m_policy, [this] { evictOutput(); });
    const double memcpySeconds = medianSeconds(
        [&] {
            onThreads(threads, [&](unsigned index, unsigned parts) {
                const auto [begin, length] = part(index, parts);
                std::memcpy(m_output + begin, m_source + begin, length);
            });
        },
        m_policy,
        [this] {
            evictOutput();
            evictFromCache(m_source, m_elements * sizeof(float));
        });
    baselines.memsetGbps = bytes / memset.wall / 1e9;
    baselines.memsetCpuGbps = bytes / memset.cpu / 1e9;
    baselines.memcpyGbps = bytes / memcpySeconds / 1e9;
    return baselines;
}

}  // namespace bench
