#include "remote/DiskCachedSource.h"

#include "base/Sha256.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

namespace gguf::remote {

namespace {
bool readExactly(const std::string& path, std::uint8_t* out, std::uint64_t length)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat info {};
    bool ok = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) == length;
    std::uint64_t done = 0;
    while (ok && done < length) {
        const ssize_t n = ::pread(fd, out + done, static_cast<std::size_t>(length - done), static_cast<off_t>(done));
        ok = n > 0;
        done += ok ? static_cast<std::uint64_t>(n) : 0;
    }
    ::close(fd);
    return ok;
}

struct CachedChunk {
    std::string path;
    std::uint64_t bytes;
    time_t used;
};
}  // namespace

std::string DiskCachedSource::configuredDirectory()
{
    const char* dir = std::getenv("GGUFX_REMOTE_DISK_CACHE");
    return dir && *dir ? dir : "";
}

std::uint64_t DiskCachedSource::configuredLimit()
{
    if (const char* text = std::getenv("GGUFX_REMOTE_DISK_CACHE_MB")) {
        char* end = nullptr;
        const unsigned long long mb = std::strtoull(text, &end, 10);
        if (end != text && *end == '\0' && mb < (1ull << 40))
            return mb << 20;
    }
    return 4096ull << 20;
}

DiskCachedSource::DiskCachedSource(std::shared_ptr<HttpFile> inner, std::string directory, std::uint64_t limitBytes)
    : m_inner(std::move(inner)), m_root(std::move(directory)), m_limit(limitBytes)
{
    const RemoteFileFacts& facts = m_inner->facts();
    const std::string identity = m_inner->url() + "\n" + std::to_string(facts.size) + "\n" + facts.etag + "\n" + facts.lastModified;
    m_folder = m_root + "/" + Sha256::toHex(Sha256::of({reinterpret_cast<const std::uint8_t*>(identity.data()), identity.size()}));
    ::mkdir(m_root.c_str(), 0700);
    ::mkdir(m_folder.c_str(), 0700);
}

std::string DiskCachedSource::chunkPath(std::uint64_t chunk) const
{
    return m_folder + "/" + std::to_string(chunk);
}

bool DiskCachedSource::readChunk(std::uint64_t chunk, std::uint8_t* out, std::uint64_t length) const
{
    const std::string path = chunkPath(chunk);
    if (!readExactly(path, out, length))
        return false;
    ::utime(path.c_str(), nullptr);  // recently used: trimmed last
    return true;
}

void DiskCachedSource::writeChunk(std::uint64_t chunk, const std::uint8_t* data, std::uint64_t length)
{
    // Temp + rename: a reader (this process or another) sees a whole chunk or none.
    const std::string path = chunkPath(chunk);
    const std::string temp = path + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    std::uint64_t done = 0;
    while (done < length) {
        const ssize_t n = ::write(fd, data + done, static_cast<std::size_t>(length - done));
        if (n <= 0)
            break;
        done += static_cast<std::uint64_t>(n);
    }
    ::close(fd);
    if (done != length || ::rename(temp.c_str(), path.c_str()) != 0)
        std::remove(temp.c_str());
}

void DiskCachedSource::trimToLimit()
{
    std::vector<CachedChunk> chunks;
    std::uint64_t total = 0;
    if (DIR* root = ::opendir(m_root.c_str())) {
        while (const dirent* folder = ::readdir(root)) {
            if (folder->d_name[0] == '.')
                continue;
            const std::string folderPath = m_root + "/" + folder->d_name;
            DIR* files = ::opendir(folderPath.c_str());
            if (!files)
                continue;
            while (const dirent* entry = ::readdir(files)) {
                struct stat info {};
                const std::string path = folderPath + "/" + entry->d_name;
                if (entry->d_name[0] != '.' && ::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
                    chunks.push_back({path, static_cast<std::uint64_t>(info.st_size), info.st_mtime});
                    total += static_cast<std::uint64_t>(info.st_size);
                }
            }
            ::closedir(files);
        }
        ::closedir(root);
    }
    if (total <= m_limit)
        return;
    std::sort(chunks.begin(), chunks.end(), [](const CachedChunk& a, const CachedChunk& b) { return a.used < b.used; });
    for (const CachedChunk& chunk : chunks) {
        if (total <= m_limit)
            break;
        if (std::remove(chunk.path.c_str()) == 0)
            total -= chunk.bytes;
    }
}

Status DiskCachedSource::read(const std::vector<ByteRange>& ranges)
{
    std::lock_guard lock(m_mutex);
    // Whole chunks come from disk when there; the rest goes to the server in as few ranges as before.
    std::vector<ByteRange> missing;
    std::vector<std::pair<std::uint64_t, ByteRange>> toStore;  // chunk, its bytes
    for (const ByteRange& range : ranges) {
        std::uint64_t at = range.offset;
        const std::uint64_t end = range.offset + range.out.size();
        while (at < end) {
            const std::uint64_t chunk = at / kChunkBytes;
            const std::uint64_t chunkEnd = std::min(size(), (chunk + 1) * kChunkBytes);
            const std::uint64_t pieceEnd = std::min(end, chunkEnd);
            std::uint8_t* out = range.out.data() + (at - range.offset);
            const bool whole = at == chunk * kChunkBytes && pieceEnd == chunkEnd;
            if (whole && readChunk(chunk, out, pieceEnd - at)) {
                ++m_fromDisk;
            } else {
                const ByteRange piece{at, {out, static_cast<std::size_t>(pieceEnd - at)}};
                if (!missing.empty() && missing.back().offset + missing.back().out.size() == at
                    && missing.back().out.data() + missing.back().out.size() == out)
                    missing.back().out = {missing.back().out.data(), missing.back().out.size() + piece.out.size()};
                else
                    missing.push_back(piece);
                if (whole)
                    toStore.emplace_back(chunk, piece);
            }
            at = pieceEnd;
        }
    }
    if (missing.empty())
        return Ok{};
    if (Status s = m_inner->read(missing); !s)
        return s;
    if (m_limit == 0)
        return Ok{};
    for (const auto& [chunk, piece] : toStore)
        writeChunk(chunk, piece.out.data(), piece.out.size());
    trimToLimit();
    return Ok{};
}

}  // namespace gguf::remote
