#include "core/remote/Download.h"

#include "core/base/Sha256.h"
#include "core/gguf/SplitName.h"
#include "core/remote/HttpFile.h"
#include "core/remote/RemoteUrl.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gguf::remote {

namespace {
constexpr std::uint64_t kPieceBytes = 4u << 20;
constexpr int kPiecesInFlight = 4;

bool isSha256(const std::string& text)
{
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string lowerHex(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// What identifies the server's file, so a later run resumes only onto the same one.
std::string sourceRecord(const RemoteFileFacts& facts)
{
    return std::to_string(facts.size) + "\n" + facts.etag + "\n" + facts.lastModified + "\n";
}

Error systemError(const std::string& what, const std::string& path)
{
    return Error{what + ": " + std::strerror(errno), Error::kNoOffset, path};
}

// The download folder may be shared: whoever can write to it can plant NAME.part or
// NAME.part.source as a symlink or a hard link to a file of ours, for the download to write
// into. Each is opened without following a symlink (and without blocking on a FIFO), and used
// only when it is a regular file of this user with no other name; it is truncated, where
// asked, only after that check.
Result<int> openOwnFile(const std::string& path, bool truncate)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
    if (fd < 0) {
        if (errno == ELOOP)
            return Error{"is a symbolic link; refusing to write through it (remove it to download again)", Error::kNoOffset, path};
        return systemError("cannot create the download file", path);
    }
    struct stat info {};
    const char* problem = nullptr;
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        problem = "is not a regular file";
    else if (info.st_uid != ::geteuid())
        problem = "belongs to another user";
    else if (info.st_nlink != 1)
        problem = "has other names (hard links)";
    if (problem) {
        ::close(fd);
        return Error{std::string(problem) + "; refusing to write into it (remove it to download again)", Error::kNoOffset, path};
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (truncate && ::ftruncate(fd, 0) != 0) {
        ::close(fd);
        return systemError("cannot empty the download file", path);
    }
    return fd;
}

// What NAME.part.source says, when it is a regular file of this user; empty otherwise.
std::string readRecord(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return {};
    struct stat info {};
    std::string text;
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid() && info.st_size < 4096) {
        char buffer[4096];
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got > 0)
            text.assign(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return text;
}

Status writeAllAt(int fd, const std::uint8_t* data, std::uint64_t size, std::uint64_t offset, const std::string& path)
{
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, data, static_cast<std::size_t>(size), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return systemError("cannot write", path);
        data += n;
        size -= static_cast<std::uint64_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return Ok{};
}

// Hashes what a previous run saved; returns how much of it can be kept (all of it, as far as
// it can be read).
std::uint64_t hashExisting(int fd, std::uint64_t length, Sha256& hash, std::vector<std::uint8_t>& buffer)
{
    std::uint64_t done = 0;
    while (done < length) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), length - done));
        const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(done));
        if (n <= 0)
            break;
        hash.update(buffer.data(), static_cast<std::size_t>(n));
        done += static_cast<std::uint64_t>(n);
    }
    return done;
}

Result<DownloadedFile> downloadOne(const std::string& url, const std::string& directory, const DownloadOptions& options)
{
    const std::string name = fileNameOf(url);
    if (name.empty() || name == "." || name == ".."
        || std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f || c == '\\'; }))
        return Error{"the URL does not end in a usable file name", Error::kNoOffset, url};
    DownloadedFile result;
    result.path = directory + "/" + name;
    const std::string partPath = result.path + ".part";
    const std::string recordPath = result.path + ".part.source";

    RemoteOptions remote = options.remote;
    remote.firstReadBytes = 64u << 10;
    auto opened = HttpFile::open(url, remote);
    if (!opened)
        return opened.error();
    HttpFile& file = *opened.value();
    const RemoteFileFacts& facts = file.facts();
    result.bytes = facts.size;
    if (isSha256(facts.linkedEtag))
        result.expectedSha256 = lowerHex(facts.linkedEtag);
    else if (std::string plain = facts.etag.size() == 66 ? facts.etag.substr(1, 64) : facts.etag; isSha256(plain))
        result.expectedSha256 = lowerHex(plain);

    // Resume only onto the same server file; otherwise start again.
    const bool sameSource = readRecord(recordPath) == sourceRecord(facts);
    auto part = openOwnFile(partPath, !sameSource);
    if (!part)
        return part.error();
    const int fd = *part;
    struct stat info {};
    ::fstat(fd, &info);
    if (!sameSource) {
        auto record = openOwnFile(recordPath, true);
        if (!record) {
            ::close(fd);
            return record.error();
        }
        const std::string text = sourceRecord(facts);
        const Status written = writeAllAt(*record, reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), 0, recordPath);
        ::close(*record);
        if (!written) {
            ::close(fd);
            return written.error();
        }
    }
    std::vector<std::uint8_t> buffer(static_cast<std::size_t>(kPieceBytes * kPiecesInFlight));
    Sha256 hash;
    std::uint64_t offset = hashExisting(fd, std::min<std::uint64_t>(static_cast<std::uint64_t>(info.st_size), facts.size), hash, buffer);
    result.resumedFrom = offset;
    ::ftruncate(fd, static_cast<off_t>(offset));
    Status status = Ok{};
    while (status && offset < facts.size) {
        std::vector<ByteRange> ranges;
        std::uint64_t batch = 0;
        for (int i = 0; i < kPiecesInFlight && offset + batch < facts.size; ++i) {
            const std::uint64_t piece = std::min(kPieceBytes, facts.size - offset - batch);
            ranges.push_back(ByteRange{offset + batch, {buffer.data() + batch, static_cast<std::size_t>(piece)}});
            batch += piece;
        }
        status = file.read(ranges);
        if (!status)
            break;
        status = writeAllAt(fd, buffer.data(), batch, offset, partPath);
        if (!status) {
            // What a short write left past `offset` is not in the hash: keep exactly what is.
            (void)::ftruncate(fd, static_cast<off_t>(offset));
            break;
        }
        hash.update(buffer.data(), static_cast<std::size_t>(batch));
        offset += batch;
        if (options.progress)
            options.progress(name, offset, facts.size);
    }
    if (status && ::fsync(fd) != 0)
        status = systemError("cannot flush the download file", partPath);
    ::close(fd);
    if (!status)
        return Error{status.error().message + " (" + std::to_string(offset) + " bytes are kept in " + partPath
                         + "; running the download again resumes there)", Error::kNoOffset, url};
    result.sha256 = Sha256::toHex(hash.finish());
    if (!result.expectedSha256.empty() && result.sha256 != result.expectedSha256) {
        std::remove(partPath.c_str());
        std::remove(recordPath.c_str());
        return Error{"the downloaded file's SHA-256 is " + result.sha256 + " but the server says " + result.expectedSha256
                         + "; the download was removed", Error::kNoOffset, url};
    }
    if (::rename(partPath.c_str(), result.path.c_str()) != 0)
        return systemError("cannot move the finished download into place", result.path);
    std::remove(recordPath.c_str());
    if (const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return result;
}
}  // namespace

Result<std::vector<DownloadedFile>> downloadModel(const std::string& name, const std::string& directory, const DownloadOptions& options)
{
    auto url = resolveUrl(name);
    if (!url)
        return url.error();
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0)
        return systemError(errno == ENOENT ? "no such folder (download -o names a folder that exists)" : "cannot use the folder", directory);
    if (!S_ISDIR(info.st_mode))
        return Error{"not a folder (download -o names the folder the files go into)", Error::kNoOffset, directory};
    std::vector<std::string> urls{url.value()};
    if (const auto split = SplitName::parse(url.value())) {
        urls.clear();
        for (int k = 1; k <= split->count; ++k)
            urls.push_back(split->shardPath(k));
    }
    std::vector<DownloadedFile> files;
    for (const std::string& shardUrl : urls) {
        auto file = downloadOne(shardUrl, directory, options);
        if (!file)
            return file.error();
        files.push_back(std::move(file.value()));
    }
    return files;
}

}  // namespace gguf::remote
