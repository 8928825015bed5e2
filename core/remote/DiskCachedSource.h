#pragma once
// An optional disk cache under a remote file: chunks fetched once are kept as files in
// DIR/<key>/ (key: SHA-256 of the URL, size, ETag and Last-Modified, so another version of
// the file never reads this one's chunks) and read from there the next time, also by the next
// process. The folder is kept under a size limit, least recently used chunks first out.
// Enabled by GGUFX_REMOTE_DISK_CACHE=DIR (limit GGUFX_REMOTE_DISK_CACHE_MB, default 4096).

#include "gguf/ByteRangeSource.h"
#include "remote/HttpFile.h"

#include <memory>
#include <mutex>
#include <string>

namespace gguf::remote {

class DiskCachedSource final : public ByteRangeSource {
public:
    static constexpr std::uint64_t kChunkBytes = 64u << 10;  // as RemoteRegion's chunks
    DiskCachedSource(std::shared_ptr<HttpFile> inner, std::string directory, std::uint64_t limitBytes);

    std::uint64_t size() const override { return m_inner->size(); }
    Status read(const std::vector<ByteRange>& ranges) override;
    Status checkUnchanged() const override { return m_inner->checkUnchanged(); }
    std::uint64_t preferredReadSize() const override { return m_inner->preferredReadSize(); }

    const HttpFile& inner() const { return *m_inner; }
    std::uint64_t chunksFromDisk() const { return m_fromDisk; }

    // The cache folder and limit the environment asks for; empty folder: no disk cache.
    static std::string configuredDirectory();
    static std::uint64_t configuredLimit();

private:
    std::string chunkPath(std::uint64_t chunk) const;
    bool readChunk(std::uint64_t chunk, std::uint8_t* out, std::uint64_t length) const;
    void writeChunk(std::uint64_t chunk, const std::uint8_t* data, std::uint64_t length);
    void trimToLimit();

    std::shared_ptr<HttpFile> m_inner;
    std::string m_root;
    std::string m_folder;
    std::uint64_t m_limit;
    std::mutex m_mutex;
    std::uint64_t m_fromDisk = 0;
};

}  // namespace gguf::remote
