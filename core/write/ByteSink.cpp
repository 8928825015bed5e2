#include "write/ByteSink.h"

#include "base/FileKind.h"
#include "gguf/FileMode.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <fcntl.h>
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

bool startsWith(const std::string& text, std::string_view prefix)
{
    return text.compare(0, prefix.size(), prefix) == 0;
}

// Paths whose meaning is a descriptor of this process rather than a file in a folder.
bool namesProcessDescriptor(const std::string& path)
{
    return startsWith(path, "/proc/") || startsWith(path, "/dev/fd/") || path == "/dev/stdout" || path == "/dev/stderr";
}

// "/dev/stdout" -> 1, "/dev/fd/3" or "/proc/self/fd/3" -> 3; -1 for anything else. Written
// through a copy of that descriptor, as the shell does, so `>>` keeps appending.
int descriptorNamedBy(const std::string& path)
{
    if (path == "/dev/stdout")
        return STDOUT_FILENO;
    if (path == "/dev/stderr")
        return STDERR_FILENO;
    for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (!startsWith(path, prefix))
            continue;
        const std::string number = path.substr(std::strlen(prefix));
        if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos)
            return -1;
        return std::stoi(number);
    }
    return -1;
}
}  // namespace

Result<ResolvedOutput> resolveOutputPath(const std::string& path)
{
    ResolvedOutput resolved{path, namesProcessDescriptor(path)};
    // Follow the last component's symlinks ourselves (at most 40, as the kernel does), so the
    // temp file is made beside the real target and the rename replaces it, not the link.
    for (int hop = 0; hop <= 40; ++hop) {
        struct stat info {};
        if (::lstat(resolved.path.c_str(), &info) != 0) {
            if (errno == ENOENT)
                return resolved;  // a new file (or a dangling link's target, which gets created)
            return systemError("cannot examine the output path", path);
        }
        if (!S_ISLNK(info.st_mode))
            return resolved;
        std::vector<char> target(static_cast<std::size_t>(info.st_size > 0 ? info.st_size : 4095) + 2);
        const ssize_t length = ::readlink(resolved.path.c_str(), target.data(), target.size() - 1);
        if (length < 0)
            return systemError("cannot read the symbolic link", resolved.path);
        const std::string link(target.data(), static_cast<std::size_t>(length));
        if (!link.empty() && link.front() == '/') {
            resolved.path = link;
        } else {
            const auto slash = resolved.path.find_last_of('/');
            resolved.path = (slash == std::string::npos ? std::string() : resolved.path.substr(0, slash + 1)) + link;
        }
        resolved.throughProcessDescriptor = resolved.throughProcessDescriptor || namesProcessDescriptor(resolved.path);
        if (resolved.throughProcessDescriptor)
            return resolved;  // /proc links are not paths; open() follows them, we do not
    }
    return Error{"too many levels of symbolic links", Error::kNoOffset, path};
}

Result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::create(const std::string& requestedPath)
{
    const auto resolved = resolveOutputPath(requestedPath);
    if (!resolved)
        return resolved.error();
    const std::string& targetPath = resolved->path;
    struct stat existing {};
    if (::stat(targetPath.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
        return Error{std::string("the output is ") + nonRegularFileKind(existing.st_mode, "not a regular file") + ", not a regular file; refusing to replace it",
                     Error::kNoOffset, requestedPath};
    const auto slash = targetPath.find_last_of('/');
    const std::string dir = slash == std::string::npos ? std::string() : targetPath.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? targetPath : targetPath.substr(slash + 1);
    if (base.empty() || base == "." || base == "..")
        return Error{"output path names a folder, not a file", Error::kNoOffset, requestedPath};
    std::string pattern = dir + "." + base + ".XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const int fd = ::mkstemp(buffer.data());
    if (fd < 0)
        return systemError("cannot create a temporary file beside the output", targetPath);
    // mkstemp makes it 0600; the finished file gets what any new file of this user would.
    ::fchmod(fd, static_cast<mode_t>(newFileMode()));
    return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(targetPath, buffer.data(), fd));
}

AtomicFileSink::AtomicFileSink(std::string targetPath, std::string tempPath, int fd)
    : m_targetPath(std::move(targetPath)), m_tempPath(std::move(tempPath)), m_fd(fd)
{
}

AtomicFileSink::~AtomicFileSink()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed)
        ::unlink(m_tempPath.c_str());
}

// Errors name the target: the temp file is our detail, and it is gone once the sink is.
Status AtomicFileSink::write(const void* data, std::size_t size)
{
    return writeAll(m_fd, data, size, m_targetPath);
}

Status AtomicFileSink::commit()
{
    if (::fsync(m_fd) != 0)
        return systemError("cannot flush the output", m_targetPath);
    if (::close(m_fd) != 0) {
        m_fd = -1;
        return systemError("cannot close the output", m_targetPath);
    }
    m_fd = -1;
    if (::rename(m_tempPath.c_str(), m_targetPath.c_str()) != 0)
        return systemError("cannot move the output into place", m_targetPath);
    m_committed = true;
    return Ok{};
}

Result<std::unique_ptr<ByteSink>> openOutputFile(const std::string& path)
{
    if (const int named = descriptorNamedBy(path); named >= 0) {
        const int fd = ::fcntl(named, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
            return systemError("cannot write to that descriptor", path);
        return std::unique_ptr<ByteSink>(new DirectFileSink(fd, path));
    }
    const auto resolved = resolveOutputPath(path);
    if (!resolved)
        return resolved.error();
    struct stat existing {};
    const bool exists = ::stat(resolved->path.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode))
        return Error{"the output is a folder, not a file", Error::kNoOffset, path};
    if (resolved->throughProcessDescriptor || (exists && !S_ISREG(existing.st_mode))) {
        // Devices, FIFOs and descriptors are written into as they are, never replaced. A FIFO
        // blocks here until a reader opens it, as `cat > fifo` does.
        const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return systemError("cannot open the output", path);
        return std::unique_ptr<ByteSink>(new DirectFileSink(fd, path));
    }
    auto atomic = AtomicFileSink::create(resolved->path);
    if (!atomic)
        return atomic.error();
    return std::unique_ptr<ByteSink>(std::move(atomic.value()));
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
