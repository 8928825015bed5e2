#pragma once
// An optional disk cache under a remote file: chunks fetched once are kept as files in
// DIR/<key>/ (key: SHA-256 of the URL, size, ETag and Last-Modified, so another version of
// the file never reads this one's chunks) and read from there the next time, also by the next
// process. The folder is kept under a size limit, least recently used chunks first out.
// Enabled by GGUFX_REMOTE_DISK_CACHE=DIR (limit GGUFX_REMOTE_DISK_CACHE_MB, default 4096).
//
// What is read back is checked, since it ends up in results and in Save As: the folders must
// belong to this user and be writable by nobody else (else the open fails: another user could
// plant chunks), and each chunk carries a SHA-256 of its key, index and bytes; a chunk that is
// not exactly what was stored (edited, cut short, planted, from another file or place) is
// removed and fetched again.

#include "core/base/Sha256.h"
#include "core/gguf/ByteRangeSource.h"
#include "core/remote/HttpFile.h"

#include <memory>
#include <mutex>
#include <string>

namespace gguf::remote {

class DiskCachedSource final : public ByteRangeSource {
public:
    static constexpr std::uint64_t kChunkBytes = 64u << 10;  // as RemoteRegion's chunks
    // Opens (creating them 0700) the cache folder and this file's folder in it; an error when
    // either is not safe to read chunks from.
    static Result<std::shared_ptr<DiskCachedSource>> open(std::shared_ptr<HttpFile> inner, const std::string& directory,
                                                          std::uint64_t limitBytes);
    ~DiskCachedSource() override;
    DiskCachedSource(const DiskCachedSource&) = delete;
    DiskCachedSource& operator=(const DiskCachedSource&) = delete;

    std::uint64_t size() const override { return m_inner->size(); }
    Status read(const std::vector<ByteRange>& ranges) override;
    Status checkUnchanged() const override { return m_inner->checkUnchanged(); }
    std::uint64_t preferredReadSize() const override { return m_inner->preferredReadSize(); }

    const HttpFile& inner() const { return *m_inner; }
    std::uint64_t chunksFromDisk() const { return m_fromDisk; }
    std::uint64_t chunksRefused() const { return m_refused; }  // found on disk but failing their check

    // The cache folder and limit the environment asks for; empty folder: no disk cache.
    static std::string configuredDirectory();
    static std::uint64_t configuredLimit();

private:
    DiskCachedSource(std::shared_ptr<HttpFile> inner, std::uint64_t limitBytes) : m_inner(std::move(inner)), m_limit(limitBytes) {}
    std::string chunkName(std::uint64_t chunk) const { return std::to_string(chunk); }
    Sha256::Digest chunkDigest(std::uint64_t chunk, const std::uint8_t* data, std::uint64_t length) const;
    bool readChunk(std::uint64_t chunk, std::uint8_t* out, std::uint64_t length);
    void writeChunk(std::uint64_t chunk, const std::uint8_t* data, std::uint64_t length);
    void trimToLimit();

    std::shared_ptr<HttpFile> m_inner;
    std::string m_key;     // this file's folder name in the cache
    int m_rootFd = -1;     // the cache folder, checked once at open
    int m_folderFd = -1;   // this file's folder in it
    std::uint64_t m_limit;
    std::mutex m_mutex;
    std::uint64_t m_fromDisk = 0;
    std::uint64_t m_refused = 0;
};

}  // namespace gguf::remote
