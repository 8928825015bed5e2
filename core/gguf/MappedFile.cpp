#include "core/gguf/MappedFile.h"

#include "core/base/FileKind.h"
#include "core/base/InputFiles.h"
#include "core/gguf/MappedRegionGuard.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gguf {

namespace {
Error systemError(const std::string& path, const char* what)
{
    return Error{std::string(what) + ": " + std::strerror(errno), Error::kNoOffset, path};
}

bool sameTime(const timespec& a, const timespec& b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Reads exactly `length` bytes at `offset`, or fewer only at the end of the file.
Result<std::uint64_t> readFully(int fd, std::uint8_t* out, std::uint64_t length, std::uint64_t offset)
{
    std::uint64_t done = 0;
    while (done < length) {
        const ssize_t got = ::pread(fd, out + done, static_cast<std::size_t>(length - done), static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return Error{std::string("cannot read the file: ") + std::strerror(errno), Error::kNoOffset, {}};
        if (got == 0)
            break;
        done += static_cast<std::uint64_t>(got);
    }
    return done;
}
}  // namespace

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever (and a
    // tape or modem device may wait too); the fstat below then refuses anything not regular.
    // O_NOCTTY: a terminal device must never become our controlling terminal.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        Error error = systemError(path, "cannot open file");
        if (errno == EMFILE || errno == ENFILE)
            error.message += " (every open file and shard keeps a descriptor; raise the limit with `ulimit -n`)";
        return error;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        Error error = systemError(path, "cannot stat file");
        ::close(fd);
        return error;
    }
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        return Error{std::string("not a regular file (") + nonRegularFileKind(info.st_mode, "not a plain file") + "); only regular files can be opened",
                     Error::kNoOffset, path};
    }
    noteInputFile(fd, path);  // no output of this run may replace it
    // Regular files ignore O_NONBLOCK, but clear it so that nothing relies on that.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const std::uint8_t* data = nullptr;
    if (size > 0) {
        void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapping == MAP_FAILED) {
            Error error = systemError(path, "cannot map file");
            ::close(fd);
            return error;
        }
        data = static_cast<const std::uint8_t*>(mapping);
    }
    std::shared_ptr<MappedFile> file(new MappedFile(path, data, size, fd));
    // An unguarded mapping would let a truncation kill the process: refuse instead.
    if (size > 0 && file->m_guardSlot < 0)
        return Error{"cannot register the file mapping with the truncation guard (out of memory)", Error::kNoOffset, path};
    file->m_device = static_cast<std::uint64_t>(info.st_dev);
    file->m_inode = static_cast<std::uint64_t>(info.st_ino);
    file->m_modified = info.st_mtim;
    file->m_statusChanged = info.st_ctim;
    return file;
}

Result<std::shared_ptr<MappedFile>> MappedFile::openFrom(const std::string& name, std::shared_ptr<ByteRangeSource> source)
{
    auto region = RemoteRegion::create(std::move(source), RemoteRegion::defaultCacheBudget());
    if (!region)
        return Error{region.error().message, Error::kNoOffset, name};
    // No fd, no truncation guard: the bytes live in anonymous memory that nothing can take away.
    std::shared_ptr<MappedFile> file(new MappedFile(name, nullptr, 0, -1));
    file->m_data = region.value()->data();
    file->m_size = region.value()->size();
    file->m_remote = std::move(region.value());
    return file;
}

MappedFile::MappedFile(std::string path, const std::uint8_t* data, std::uint64_t size, int fd)
    : m_path(std::move(path)), m_data(data), m_size(size), m_fd(fd), m_guardSlot(registerMappedRegion(data, size))
{
}

MappedFile::~MappedFile()
{
    unregisterMappedRegion(m_guardSlot);
    if (m_data && !m_remote)
        ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
    if (m_fd >= 0)
        ::close(m_fd);
}

namespace {
// Copies grow by an eighth of what is copied, at least 64 KiB: a few dozen reads for a big
// header, and little overshoot into tensor data (which the peak memory would count, even though
// finishPrefixCopy hands it back to the file).
constexpr std::uint64_t kMinCopyStep = 64ull << 10;

std::uint64_t pageSize()
{
    static const auto size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return size;
}
}  // namespace

std::uint64_t MappedFile::copyPrefix(std::uint64_t end) const
{
    end = std::min(end, m_size);
    if (end <= m_copiedEnd || !m_copyFailure.empty())
        return m_copiedEnd;
    if (m_remote)
        return m_copiedEnd = m_remote->extendPrefix(end, m_copyFailure);
    const std::uint64_t page = pageSize();
    const std::uint64_t mappedSpan = (m_size + page - 1) / page * page;
    // Grown by what is private, not by how far the copy reaches: past a summary open's unkept
    // arrays (holes) the steps stay small.
    std::uint64_t newEnd = std::max(end, m_copiedEnd + std::max(kMinCopyStep, m_privateBytes / 8));
    newEnd = std::min((newEnd + page - 1) / page * page, mappedSpan);
    std::uint8_t* at = const_cast<std::uint8_t*>(m_data) + m_copiedEnd;
    const std::uint64_t span = newEnd - m_copiedEnd;
    // Fresh anonymous pages replace the file's at the same addresses, then take the file's bytes.
    // Nobody else reads this mapping while it is parsed, so the moment of zeros is never seen.
    // MAP_POPULATE: one pass over the pages instead of a fault per page inside the read.
    if (::mmap(at, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0) == MAP_FAILED) {
        m_copyFailure = std::string("cannot allocate memory for the file header: ") + std::strerror(errno);
        return m_copiedEnd;
    }
    const std::uint64_t wanted = std::min(newEnd, m_size) - m_copiedEnd;
    const auto read = readFully(m_fd, at, wanted, m_copiedEnd);
    ::mprotect(at, span, PROT_READ);
    if (!read) {
        m_copyFailure = read.error().message;
        return m_copiedEnd;
    }
    if (*read < wanted) {
        m_copyFailure = "the file shrank while it was being opened; open it again";
        return m_copiedEnd;
    }
    m_privateBytes += span;
    m_copiedEnd = newEnd == mappedSpan ? m_size : newEnd;
    return m_copiedEnd;
}

std::uint64_t MappedFile::skipPrefixCopy(std::uint64_t end) const
{
    end = std::min(end, m_size);
    if (m_remote)
        return copyPrefix(end);
    const std::uint64_t pageStart = end / pageSize() * pageSize();
    if (pageStart > m_copiedEnd && m_copyFailure.empty())
        m_copiedEnd = pageStart;
    return m_copiedEnd;
}

void MappedFile::releaseUncopied(std::uint64_t begin, std::uint64_t end) const
{
    if (m_remote || !m_data)
        return;
    const std::uint64_t page = pageSize();
    begin = (std::max(begin, m_copiedEnd) + page - 1) / page * page;
    end = std::min(end, m_size) / page * page;
    // MADV_DONTNEED drops the mapping of clean file pages; they would be read again from the
    // page cache. Nothing private lies here (begin is past the copy), so nothing is lost.
    if (end > begin)
        ::madvise(const_cast<std::uint8_t*>(m_data) + begin, end - begin, MADV_DONTNEED);
}

Status MappedFile::finishPrefixCopy(std::uint64_t length) const
{
    if (m_remote)
        return checkUnchanged();
    const std::uint64_t page = pageSize();
    const std::uint64_t copiedSpan = m_copiedEnd == m_size ? (m_size + page - 1) / page * page : m_copiedEnd;
    const std::uint64_t keep = std::min((length + page - 1) / page * page, copiedSpan);
    if (keep < copiedSpan) {
        if (::mmap(const_cast<std::uint8_t*>(m_data) + keep, copiedSpan - keep, PROT_READ, MAP_PRIVATE | MAP_FIXED, m_fd,
                   static_cast<off_t>(keep)) == MAP_FAILED)
            return systemError(m_path, "cannot map the tensor data again after reading the header");
        m_copiedEnd = std::min(keep, m_size);
    }
    if (Status unchanged = checkUnchanged(); !unchanged)
        return Error{"the file changed while it was being opened; open it again (" + unchanged.error().message + ")",
                     Error::kNoOffset, m_path};
    return Ok{};
}

Status MappedFile::checkUnchanged() const
{
    if (m_remote)
        return m_remote->source().checkUnchanged();
    if (mappedRegionFaulted(m_guardSlot))
        return Error{"parts of the file vanished while they were being read: it was truncated or rewritten since it was opened",
                     Error::kNoOffset, m_path};
    struct stat now {};
    if (::fstat(m_fd, &now) != 0)
        return systemError(m_path, "cannot check the file");
    if (static_cast<std::uint64_t>(now.st_size) < m_size)
        return Error{"the file was truncated from " + std::to_string(m_size) + " to " + std::to_string(now.st_size)
                         + " bytes since it was opened", Error::kNoOffset, m_path};
    if (static_cast<std::uint64_t>(now.st_size) != m_size || !sameTime(now.st_mtim, m_modified))
        return Error{"the file was modified since it was opened", Error::kNoOffset, m_path};
    struct stat named {};
    if (::stat(m_path.c_str(), &named) != 0)
        return Error{"the file was deleted or renamed since it was opened", Error::kNoOffset, m_path};
    if (static_cast<std::uint64_t>(named.st_dev) != m_device || static_cast<std::uint64_t>(named.st_ino) != m_inode)
        return Error{"the file was replaced by another file since it was opened", Error::kNoOffset, m_path};
    // Checked last, so a rename or a replacement is reported as such. Only the kernel sets
    // ctime: a rewrite in place that puts the old mtime back (`touch -r`, `rsync --inplace -t`)
    // still moves it. chmod and ln move it too; for a file we must trust, that errs the safe way.
    if (!sameTime(now.st_ctim, m_statusChanged))
        return Error{"the file was modified since it was opened (its change time moved, although its modification time "
                     "was kept)", Error::kNoOffset, m_path};
    return Ok{};
}

}  // namespace gguf
