#pragma once
// The address range that stands for a file whose bytes come from a ByteRangeSource. Readers
// keep using plain pointers (TensorInfo::data, metadata views), so nothing that reads a mapped
// file changes; what changes is that bytes must be asked for before they are read:
// ensureMappedBytes() below, called where tensor bytes are read (dequantization, block scales,
// checks). For a mapped file it returns at once.
//
// Bytes arrive in chunks of kChunkBytes (block-aligned reads: a window of rows fetches the
// chunks that hold those rows, nothing more). The header prefix stays for the file's life, as
// the private copy a mapped file keeps. Tensor chunks live in a bounded cache: past the budget
// the least recently asked-for chunks are dropped (their pages hand memory back and would be
// fetched again). A reader holds its bytes from its ensure call to the end of its read; chunks
// are dropped oldest first, so only a reader that is a whole budget behind could lose them, and
// one read larger than the budget is refused.

#include "core/gguf/ByteRangeSource.h"

#include <memory>
#include <mutex>
#include <vector>

namespace gguf {

class RemoteRegion {
public:
    static constexpr std::uint64_t kChunkBytes = 64u << 10;
    static Result<std::unique_ptr<RemoteRegion>> create(std::shared_ptr<ByteRangeSource> source, std::uint64_t cacheBudget);
    ~RemoteRegion();
    RemoteRegion(const RemoteRegion&) = delete;
    RemoteRegion& operator=(const RemoteRegion&) = delete;

    const std::uint8_t* data() const { return m_data; }
    std::uint64_t size() const { return m_size; }
    ByteRangeSource& source() const { return *m_source; }

    // Fetches bytes [0, end) (growing geometrically, so a big header takes few requests) and
    // keeps them; returns how far the prefix reaches, less than `end` on failure (`failure`).
    std::uint64_t extendPrefix(std::uint64_t end, std::string& failure);
    // Makes bytes [begin, end) readable, fetching the chunks that are not.
    Status ensure(std::uint64_t begin, std::uint64_t end);

    std::uint64_t residentBytes() const;
    // Bytes a call ensure(begin, end) would fetch now (whole missing chunks).
    std::uint64_t missingBytes(std::uint64_t begin, std::uint64_t end) const;
    static std::uint64_t defaultCacheBudget();  // GGUFX_REMOTE_CACHE_MB, else 512 MiB

private:
    RemoteRegion(std::shared_ptr<ByteRangeSource> source, std::uint8_t* data, std::uint64_t size, std::uint64_t budget);
    Status fetchChunks(std::uint64_t firstChunk, std::uint64_t endChunk);
    void evictOver(std::uint64_t budget, std::uint64_t keepFrom, std::uint64_t keepTo);
    std::uint64_t chunkEnd(std::uint64_t chunk) const;

    std::shared_ptr<ByteRangeSource> m_source;
    std::uint8_t* m_data = nullptr;
    std::uint64_t m_size = 0;
    std::uint64_t m_mappedBytes = 0;
    std::uint64_t m_budget = 0;
    mutable std::mutex m_mutex;
    std::uint64_t m_prefixEnd = 0;               // bytes [0, m_prefixEnd) stay
    std::vector<std::uint64_t> m_lastUse;        // per chunk: 0 = absent, else the tick it was last asked for
    std::uint64_t m_tick = 0;
    std::uint64_t m_cachedBytes = 0;             // resident tensor chunks past the prefix
};

// For readers of tensor bytes: makes [begin, begin + size) readable when it lies in a remote
// region; Ok at once for anything else (a mapped file, a buffer).
Status ensureMappedBytes(const void* begin, std::uint64_t size);
// What ensureMappedBytes would fetch for that range now: 0 for a mapped file or bytes already
// here. Views ask before a big read, to say how much will come over the network.
std::uint64_t mappedBytesToFetch(const void* begin, std::uint64_t size);
// Whether `at` lies in a remote region: such bytes may be dropped from the cache later, so a
// reader that keeps a pointer for long (the forward pass's in-place f32 weights) copies instead.
bool isRemoteAddress(const void* at);

}  // namespace gguf
