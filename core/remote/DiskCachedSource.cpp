#include "core/remote/DiskCachedSource.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gguf::remote {

namespace {
// A chunk file: this magic, the SHA-256 of (folder key, chunk index, bytes), then the bytes.
constexpr char kMagic[8] = {'G', 'G', 'U', 'F', 'X', 'C', 'K', '1'};
constexpr std::uint64_t kHeaderBytes = sizeof kMagic + 32;

struct CachedChunk {
    std::string path;  // relative to the cache folder
    std::uint64_t bytes;
    time_t used;
};

// Why a folder (or chunk) of the cache cannot be trusted; empty when it can. Only this user
// (or root, who can write anywhere anyway) may own it, and nobody else may write to it.
std::string untrustedBecause(const struct stat& info)
{
    const uid_t me = ::geteuid();
    if (info.st_uid != me && info.st_uid != 0)
        return "it belongs to another user (uid " + std::to_string(info.st_uid) + ")";
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
        return std::string("others can write to it (mode ") + mode + ")";
    }
    return {};
}

bool readAll(int fd, std::uint8_t* out, std::uint64_t length, std::uint64_t at)
{
    std::uint64_t done = 0;
    while (done < length) {
        const ssize_t n = ::pread(fd, out + done, static_cast<std::size_t>(length - done), static_cast<off_t>(at + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += static_cast<std::uint64_t>(n);
    }
    return true;
}

bool writeAll(int fd, const std::uint8_t* data, std::uint64_t length)
{
    while (length > 0) {
        const ssize_t n = ::write(fd, data, static_cast<std::size_t>(length));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        length -= static_cast<std::uint64_t>(n);
    }
    return true;
}

// Opens folder `name` (under `parent`, or a path when parent is AT_FDCWD), creating it 0700,
// and checks it; -1 with `error` set when it cannot be used.
int openCheckedFolder(int parent, const std::string& name, const std::string& shown, std::string& error)
{
    ::mkdirat(parent, name.c_str(), 0700);
    // The cache folder itself may be reached through a symlink (its target is what is checked);
    // inside it nothing is followed.
    const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (parent == AT_FDCWD ? 0 : O_NOFOLLOW);
    const int fd = ::openat(parent, name.c_str(), flags);
    if (fd < 0) {
        error = "cannot open the remote disk cache folder " + shown + ": " + std::strerror(errno);
        return -1;
    }
    struct stat info {};
    std::string why = ::fstat(fd, &info) != 0 ? std::string(std::strerror(errno)) : untrustedBecause(info);
    if (!why.empty()) {
        ::close(fd);
        error = "the remote disk cache folder " + shown + " is not safe to read chunks from: " + why
              + "; use a folder only you can write to (GGUFX_REMOTE_DISK_CACHE)";
        return -1;
    }
    return fd;
}
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

Result<std::shared_ptr<DiskCachedSource>> DiskCachedSource::open(std::shared_ptr<HttpFile> inner, const std::string& directory,
                                                                 std::uint64_t limitBytes)
{
    std::shared_ptr<DiskCachedSource> source(new DiskCachedSource(std::move(inner), limitBytes));
    const RemoteFileFacts& facts = source->m_inner->facts();
    const std::string identity = source->m_inner->url() + "\n" + std::to_string(facts.size) + "\n" + facts.etag + "\n" + facts.lastModified;
    source->m_key = Sha256::toHex(Sha256::of({reinterpret_cast<const std::uint8_t*>(identity.data()), identity.size()}));
    std::string error;
    source->m_rootFd = openCheckedFolder(AT_FDCWD, directory, directory, error);
    if (source->m_rootFd >= 0)
        source->m_folderFd = openCheckedFolder(source->m_rootFd, source->m_key, directory + "/" + source->m_key, error);
    if (source->m_folderFd < 0)
        return Error{error, Error::kNoOffset, directory};
    return source;
}

DiskCachedSource::~DiskCachedSource()
{
    if (m_folderFd >= 0)
        ::close(m_folderFd);
    if (m_rootFd >= 0)
        ::close(m_rootFd);
}

Sha256::Digest DiskCachedSource::chunkDigest(std::uint64_t chunk, const std::uint8_t* data, std::uint64_t length) const
{
    // The key and index are hashed too: a chunk copied from another file or place fails.
    Sha256 hash;
    hash.update(m_key.data(), m_key.size());
    std::uint8_t index[8];
    for (int i = 0; i < 8; ++i)
        index[i] = static_cast<std::uint8_t>(chunk >> (8 * i));
    hash.update(index, sizeof index);
    hash.update(data, static_cast<std::size_t>(length));
    return hash.finish();
}

bool DiskCachedSource::readChunk(std::uint64_t chunk, std::uint8_t* out, std::uint64_t length)
{
    const std::string name = chunkName(chunk);
    const int fd = ::openat(m_folderFd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;  // not cached (or not a plain file: a symlink is refused by O_NOFOLLOW)
    struct stat info {};
    std::uint8_t header[kHeaderBytes];
    bool good = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && untrustedBecause(info).empty()
             && static_cast<std::uint64_t>(info.st_size) == kHeaderBytes + length && readAll(fd, header, kHeaderBytes, 0)
             && std::memcmp(header, kMagic, sizeof kMagic) == 0 && readAll(fd, out, length, kHeaderBytes);
    if (good) {
        const Sha256::Digest digest = chunkDigest(chunk, out, length);
        good = std::memcmp(header + sizeof kMagic, digest.data(), digest.size()) == 0;
    }
    if (good)
        ::futimens(fd, nullptr);  // recently used: trimmed last
    ::close(fd);
    if (!good) {
        // Not what was stored: dropped, and fetched again by the caller.
        ++m_refused;
        ::unlinkat(m_folderFd, name.c_str(), 0);
    }
    return good;
}

void DiskCachedSource::writeChunk(std::uint64_t chunk, const std::uint8_t* data, std::uint64_t length)
{
    // Temp + rename: a reader (this process or another) sees a whole chunk or none.
    const std::string name = chunkName(chunk);
    const std::string temp = "." + name + ".tmp" + std::to_string(::getpid());
    const int fd = ::openat(m_folderFd, temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    std::uint8_t header[kHeaderBytes];
    std::memcpy(header, kMagic, sizeof kMagic);
    const Sha256::Digest digest = chunkDigest(chunk, data, length);
    std::memcpy(header + sizeof kMagic, digest.data(), digest.size());
    const bool written = writeAll(fd, header, kHeaderBytes) && writeAll(fd, data, length);
    ::close(fd);
    if (!written || ::renameat(m_folderFd, temp.c_str(), m_folderFd, name.c_str()) != 0)
        ::unlinkat(m_folderFd, temp.c_str(), 0);
}

void DiskCachedSource::trimToLimit()
{
    // Every file's folder counts against the limit. The cache folder is this user's alone
    // (checked at open), so the names found in it are walked without following links.
    std::vector<CachedChunk> chunks;
    std::uint64_t total = 0;
    const int rootCopy = ::dup(m_rootFd);
    DIR* root = rootCopy >= 0 ? ::fdopendir(rootCopy) : nullptr;
    if (!root) {
        if (rootCopy >= 0)
            ::close(rootCopy);
        return;
    }
    ::rewinddir(root);
    while (const dirent* folder = ::readdir(root)) {
        if (folder->d_name[0] == '.')
            continue;
        const int folderFd = ::openat(m_rootFd, folder->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        DIR* files = folderFd >= 0 ? ::fdopendir(folderFd) : nullptr;
        if (!files) {
            if (folderFd >= 0)
                ::close(folderFd);
            continue;
        }
        while (const dirent* entry = ::readdir(files)) {
            struct stat info {};
            if (entry->d_name[0] != '.' && ::fstatat(folderFd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(info.st_mode)) {
                chunks.push_back({std::string(folder->d_name) + "/" + entry->d_name, static_cast<std::uint64_t>(info.st_size), info.st_mtime});
                total += static_cast<std::uint64_t>(info.st_size);
            }
        }
        ::closedir(files);
    }
    ::closedir(root);
    if (total <= m_limit)
        return;
    std::sort(chunks.begin(), chunks.end(), [](const CachedChunk& a, const CachedChunk& b) { return a.used < b.used; });
    for (const CachedChunk& chunk : chunks) {
        if (total <= m_limit)
            break;
        if (::unlinkat(m_rootFd, chunk.path.c_str(), 0) == 0)
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
