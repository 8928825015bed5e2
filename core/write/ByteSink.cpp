#include "core/write/ByteSink.h"

#include "core/base/FileKind.h"
#include "core/base/InputFiles.h"
#include "core/write/NewFileMode.h"
#include "core/write/TempFileCleanup.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gguf {

namespace {
Error systemError(const std::string& what, const std::string& path)
{
    return Error{what + ": " + std::strerror(errno), Error::kNoOffset, path};
}

Status writeAll(int fd, const void* data, std::size_t size, const std::string& name)
{
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t written = ::write(fd, bytes, size);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return systemError("write failed", name);
        }
        bytes += written;
        size -= static_cast<std::size_t>(written);
    }
    return Ok{};
}

struct TargetParts {
    std::string folder;  // "" or ending in '/'
    std::string base;
};

TargetParts partsOf(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return {std::string(), path};
    return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

// `<dir>/.<name>.` and six random characters, as mkstemp makes them.
std::string temporaryName(const TargetParts& parts)
{
    static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937 random{std::random_device{}()};
    std::string name = parts.folder + "." + parts.base + ".";
    for (int i = 0; i < 6; ++i)
        name += kLetters[random() % (sizeof kLetters - 1)];
    return name;
}

// The existing target's owner, group and permission bits on the new file: what a write into
// the target would have kept. The owner can only be kept by a privileged user; the group by
// any member of it; failing those, the file is this user's, with the target's permissions.
void keepOwnerAndMode(int fd, const struct stat& target)
{
    if (::fchown(fd, target.st_uid, target.st_gid) != 0)
        (void)::fchown(fd, static_cast<uid_t>(-1), target.st_gid);
    ::fchmod(fd, target.st_mode & 07777 & ~static_cast<mode_t>(S_ISUID | S_ISGID));
}
}  // namespace

Result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::create(const std::string& requestedPath)
{
    if (requestedPath.empty())
        return Error{"the output path is empty; name a file", Error::kNoOffset, requestedPath};
    const auto resolved = resolveOutputPath(requestedPath);
    if (!resolved)
        return resolved.error();
    const std::string& targetPath = resolved->path;
    struct stat existing {};
    const bool exists = ::stat(targetPath.c_str(), &existing) == 0;
    if (exists && !S_ISREG(existing.st_mode))
        return Error{std::string("the output is ") + nonRegularFileKind(existing.st_mode, "not a regular file") + ", not a regular file; refusing to replace it",
                     Error::kNoOffset, requestedPath};
    if (exists)
        if (Status s = refuseInputAsOutput(existing, requestedPath); !s)
            return s.error();
    const TargetParts parts = partsOf(targetPath);
    if (parts.base.empty() || parts.base == "." || parts.base == "..")
        return Error{"output path names a folder, not a file", Error::kNoOffset, requestedPath};

    // An unnamed file first: nothing to clean, whatever ends the process. It is given its name
    // through /proc/self/fd (linkat), so without /proc it cannot be used.
    std::string tempPath;
    static const bool procMounted = ::access("/proc/self/fd", X_OK) == 0;
    int fd = procMounted ? ::open(parts.folder.empty() ? "." : parts.folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600) : -1;
    if (fd < 0) {
        const int unnamedError = procMounted ? errno : 0;
        tempPath = parts.folder + "." + parts.base + ".XXXXXX";
        std::vector<char> buffer(tempPath.begin(), tempPath.end());
        buffer.push_back('\0');
        fd = ::mkstemp(buffer.data());
        if (fd < 0) {
            // A missing folder or no permission fails both ways: report the first, plainer one.
            if (unnamedError == ENOENT || unnamedError == EACCES || unnamedError == ENOTDIR || unnamedError == EROFS)
                errno = unnamedError;
            return systemError("cannot create a temporary file beside the output", targetPath);
        }
        tempPath = buffer.data();
    }
    if (exists)
        keepOwnerAndMode(fd, existing);
    else
        ::fchmod(fd, static_cast<mode_t>(newFileMode()));  // what any new file of this user gets
    std::unique_ptr<AtomicFileSink> sink(new AtomicFileSink(targetPath, tempPath, fd));
    if (!tempPath.empty())
        sink->m_cleanupSlot = rememberTempFile(tempPath);
    return sink;
}

AtomicFileSink::AtomicFileSink(std::string targetPath, std::string tempPath, int fd)
    : m_targetPath(std::move(targetPath)), m_tempPath(std::move(tempPath)), m_fd(fd)
{
}

AtomicFileSink::~AtomicFileSink()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed && !m_tempPath.empty())
        ::unlink(m_tempPath.c_str());
    forgetTempFile(m_cleanupSlot);
}

// Errors name the target: the temp file is our detail, and it is gone once the sink is.
Status AtomicFileSink::write(const void* data, std::size_t size)
{
    return writeAll(m_fd, data, size, m_targetPath);
}

Status AtomicFileSink::prepare()
{
    if (m_prepared)
        return Ok{};
    if (::fsync(m_fd) != 0)
        return systemError("cannot flush the output", m_targetPath);
    if (m_tempPath.empty()) {
        // The name exists only until the rename, and is cleaned on a signal meanwhile.
        const std::string self = "/proc/self/fd/" + std::to_string(m_fd);
        for (int attempt = 0;; ++attempt) {
            const std::string name = temporaryName(partsOf(m_targetPath));
            if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
                m_tempPath = name;
                m_cleanupSlot = rememberTempFile(name);
                break;
            }
            if (errno != EEXIST || attempt == 100)
                return systemError("cannot give the finished output a name", m_targetPath);
        }
    }
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0)
        return systemError("cannot close the output", m_targetPath);
    m_prepared = true;
    return Ok{};
}

void AtomicFileSink::markCommitted()
{
    m_committed = true;
    forgetTempFile(m_cleanupSlot);
    m_cleanupSlot = -1;
}

Status AtomicFileSink::commit()
{
    if (Status s = prepare(); !s)
        return s;
    // An input read after the sink was made (or a link made meanwhile) is refused here too.
    struct stat existing {};
    if (::stat(m_targetPath.c_str(), &existing) == 0)
        if (Status s = refuseInputAsOutput(existing, m_targetPath); !s)
            return s;
    if (::rename(m_tempPath.c_str(), m_targetPath.c_str()) != 0)
        return systemError("cannot move the output into place", m_targetPath);
    markCommitted();
    return Ok{};
}

DirectFileSink::~DirectFileSink()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Status DirectFileSink::write(const void* data, std::size_t size)
{
    return writeAll(m_fd, data, size, m_name);
}

Status DirectFileSink::commit()
{
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0)
        return systemError("cannot close the output", m_name);
    return Ok{};
}

Status DescriptorSink::write(const void* data, std::size_t size)
{
    return writeAll(m_fd, data, size, m_name);
}

bool isSameFile(const std::string& a, const std::string& b)
{
    struct stat first {};
    struct stat second {};
    if (::stat(a.c_str(), &first) != 0 || ::stat(b.c_str(), &second) != 0)
        return false;
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

}  // namespace gguf
