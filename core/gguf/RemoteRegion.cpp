#include "core/gguf/RemoteRegion.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sys/mman.h>
#include <unistd.h>

namespace gguf {

namespace {
constexpr std::uint64_t kPrefixChunk = std::numeric_limits<std::uint64_t>::max();
// Runs of missing chunks are cut into requests of at most this much, so that a big read goes
// out as several requests in flight.
constexpr std::uint64_t kMaxRequestBytes = 4u << 20;

// The regions ensureMappedBytes looks addresses up in. Few (one per remote shard), so a list.
std::mutex g_registryMutex;
std::vector<RemoteRegion*> g_regions;
std::atomic<std::size_t> g_regionCount{0};

std::uint64_t pageSize()
{
    static const auto size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return size;
}
}  // namespace

std::uint64_t RemoteRegion::defaultCacheBudget()
{
    if (const char* text = std::getenv("GGUFX_REMOTE_CACHE_MB")) {
        char* end = nullptr;
        const unsigned long long mb = std::strtoull(text, &end, 10);
        if (end != text && *end == '\0' && mb > 0 && mb < (1ull << 30))
            return mb << 20;
    }
    return 512ull << 20;
}

Result<std::unique_ptr<RemoteRegion>> RemoteRegion::create(std::shared_ptr<ByteRangeSource> source, std::uint64_t cacheBudget)
{
    const std::uint64_t size = source->size();
    const std::uint64_t page = pageSize();
    const std::uint64_t mapped = std::max<std::uint64_t>(page, (size + page - 1) / page * page);
    // Address space only: MAP_NORESERVE, and pages cost memory once bytes are written to them.
    void* at = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED)
        return Error{std::string("cannot reserve address space for the remote file: ") + std::strerror(errno), Error::kNoOffset, {}};
    std::unique_ptr<RemoteRegion> region(new RemoteRegion(std::move(source), static_cast<std::uint8_t*>(at), size, cacheBudget));
    region->m_mappedBytes = mapped;
    std::lock_guard lock(g_registryMutex);
    g_regions.push_back(region.get());
    g_regionCount = g_regions.size();
    return region;
}

RemoteRegion::RemoteRegion(std::shared_ptr<ByteRangeSource> source, std::uint8_t* data, std::uint64_t size, std::uint64_t budget)
    : m_source(std::move(source)), m_data(data), m_size(size), m_budget(std::max(budget, kMaxRequestBytes)),
      m_lastUse((size + kChunkBytes - 1) / kChunkBytes, 0)
{
}

RemoteRegion::~RemoteRegion()
{
    {
        std::lock_guard lock(g_registryMutex);
        g_regions.erase(std::remove(g_regions.begin(), g_regions.end(), this), g_regions.end());
        g_regionCount = g_regions.size();
    }
    ::munmap(m_data, m_mappedBytes);
}

std::uint64_t RemoteRegion::chunkEnd(std::uint64_t chunk) const
{
    return std::min(m_size, (chunk + 1) * kChunkBytes);
}

std::uint64_t RemoteRegion::residentBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_prefixEnd + m_cachedBytes;
}

std::uint64_t RemoteRegion::extendPrefix(std::uint64_t end, std::string& failure)
{
    std::lock_guard lock(m_mutex);
    end = std::min(end, m_size);
    if (end <= m_prefixEnd || !failure.empty())
        return m_prefixEnd;
    // Doubling: a header of H bytes takes about log2(H / first read) requests and fetches < 2H.
    std::uint64_t newEnd = std::max({end, 2 * m_prefixEnd, m_source->preferredReadSize()});
    newEnd = std::min(m_size, (newEnd + kChunkBytes - 1) / kChunkBytes * kChunkBytes);
    const std::uint64_t from = m_prefixEnd;
    if (Status s = m_source->read({ByteRange{from, {m_data + from, static_cast<std::size_t>(newEnd - from)}}}); !s) {
        failure = s.error().message;
        return m_prefixEnd;
    }
    for (std::uint64_t c = from / kChunkBytes; c * kChunkBytes < newEnd; ++c) {
        if (m_lastUse[c] != 0 && m_lastUse[c] != kPrefixChunk)
            m_cachedBytes -= chunkEnd(c) - c * kChunkBytes;
        m_lastUse[c] = kPrefixChunk;
    }
    m_prefixEnd = newEnd;
    return m_prefixEnd;
}

Status RemoteRegion::ensure(std::uint64_t begin, std::uint64_t end)
{
    if (begin >= end)
        return Ok{};
    if (end > m_size)
        return Error{"read past the end of the remote file", begin, {}};
    std::lock_guard lock(m_mutex);
    const std::uint64_t first = begin / kChunkBytes;
    const std::uint64_t last = (end - 1) / kChunkBytes + 1;
    if ((last - first) * kChunkBytes > m_budget)
        return Error{"a read of " + std::to_string(end - begin) + " bytes is larger than the remote cache ("
                     + std::to_string(m_budget >> 20) + " MiB, GGUFX_REMOTE_CACHE_MB); read it in smaller parts or download the model",
                     begin, {}};
    ++m_tick;
    if (Status s = fetchChunks(first, last); !s)
        return s;
    evictOver(m_budget, first, last);
    return Ok{};
}

Status RemoteRegion::fetchChunks(std::uint64_t firstChunk, std::uint64_t endChunk)
{
    std::vector<ByteRange> ranges;
    std::vector<std::uint64_t> fetched;
    std::uint64_t c = firstChunk;
    while (c < endChunk) {
        if (m_lastUse[c] != 0) {
            if (m_lastUse[c] != kPrefixChunk)
                m_lastUse[c] = m_tick;
            ++c;
            continue;
        }
        const std::uint64_t runBegin = c;
        while (c < endChunk && m_lastUse[c] == 0 && (c - runBegin + 1) * kChunkBytes <= kMaxRequestBytes) {
            fetched.push_back(c);
            ++c;
        }
        const std::uint64_t from = runBegin * kChunkBytes;
        const std::uint64_t to = chunkEnd(c - 1);
        ranges.push_back(ByteRange{from, {m_data + from, static_cast<std::size_t>(to - from)}});
    }
    if (ranges.empty())
        return Ok{};
    if (Status s = m_source->read(ranges); !s) {
        // A read cancelled or failed part way may have filled some pages: none of its chunks is
        // marked present, so a later read fetches them again; hand their memory back meanwhile.
        for (const ByteRange& range : ranges)
            ::madvise(range.out.data(), range.out.size(), MADV_DONTNEED);
        return s;
    }
    for (std::uint64_t chunk : fetched) {
        m_lastUse[chunk] = m_tick;
        m_cachedBytes += chunkEnd(chunk) - chunk * kChunkBytes;
    }
    return Ok{};
}

void RemoteRegion::evictOver(std::uint64_t budget, std::uint64_t keepFrom, std::uint64_t keepTo)
{
    if (m_cachedBytes <= budget)
        return;
    // Oldest first; a scan per eviction is fine: evictions happen once per budget's worth of reads.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> byAge;  // (tick, chunk)
    for (std::uint64_t c = 0; c < m_lastUse.size(); ++c)
        if (m_lastUse[c] != 0 && m_lastUse[c] != kPrefixChunk && (c < keepFrom || c >= keepTo))
            byAge.emplace_back(m_lastUse[c], c);
    std::sort(byAge.begin(), byAge.end());
    // Down to three quarters, so the next reads do not evict again at once.
    const std::uint64_t target = budget / 4 * 3;
    for (const auto& [tick, chunk] : byAge) {
        if (m_cachedBytes <= target)
            break;
        const std::uint64_t from = chunk * kChunkBytes;
        ::madvise(m_data + from, static_cast<std::size_t>(chunkEnd(chunk) - from), MADV_DONTNEED);
        m_lastUse[chunk] = 0;
        m_cachedBytes -= chunkEnd(chunk) - from;
    }
}

std::uint64_t RemoteRegion::missingBytes(std::uint64_t begin, std::uint64_t end) const
{
    std::lock_guard lock(m_mutex);
    end = std::min(end, m_size);
    std::uint64_t missing = 0;
    for (std::uint64_t c = begin / kChunkBytes; begin < end && c * kChunkBytes < end; ++c)
        if (m_lastUse[c] == 0)
            missing += chunkEnd(c) - c * kChunkBytes;
    return missing;
}

namespace {
RemoteRegion* regionHolding(const void* begin)
{
    const auto* at = static_cast<const std::uint8_t*>(begin);
    std::lock_guard lock(g_registryMutex);
    for (RemoteRegion* candidate : g_regions)
        if (at >= candidate->data() && at < candidate->data() + candidate->size())
            return candidate;
    return nullptr;
}
}  // namespace

std::uint64_t mappedBytesToFetch(const void* begin, std::uint64_t size)
{
    if (g_regionCount.load(std::memory_order_relaxed) == 0 || size == 0)
        return 0;
    RemoteRegion* region = regionHolding(begin);
    if (!region)
        return 0;
    const auto offset = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(begin) - region->data());
    return region->missingBytes(offset, offset + size);
}

Status ensureMappedBytes(const void* begin, std::uint64_t size)
{
    if (g_regionCount.load(std::memory_order_relaxed) == 0 || size == 0)
        return Ok{};
    const auto* at = static_cast<const std::uint8_t*>(begin);
    RemoteRegion* region = nullptr;
    {
        std::lock_guard lock(g_registryMutex);
        for (RemoteRegion* candidate : g_regions)
            if (at >= candidate->data() && at < candidate->data() + candidate->size()) {
                region = candidate;
                break;
            }
    }
    if (!region)
        return Ok{};
    const auto offset = static_cast<std::uint64_t>(at - region->data());
    return region->ensure(offset, offset + size);
}

bool isRemoteAddress(const void* at)
{
    if (g_regionCount.load(std::memory_order_relaxed) == 0)
        return false;
    const auto* byte = static_cast<const std::uint8_t*>(at);
    std::lock_guard lock(g_registryMutex);
    for (RemoteRegion* candidate : g_regions)
        if (byte >= candidate->data() && byte < candidate->data() + candidate->size())
            return true;
    return false;
}

}  // namespace gguf
