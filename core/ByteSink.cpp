#include "ByteSink.h"

#include "FileMode.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
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
}  // namespace

Result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::create(const std::string& targetPath)
{
    const auto slash = targetPath.find_last_of('/');
    const std::string dir = slash == std::string::npos ? std::string() : targetPath.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? targetPath : targetPath.substr(slash + 1);
    if (base.empty())
        return Error{"output path names a folder, not a file", Error::kNoOffset, targetPath};
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

Status AtomicFileSink::write(const void* data, std::size_t size)
{
    return writeAll(m_fd, data, size, m_tempPath);
}

Status AtomicFileSink::commit()
{
    if (::fsync(m_fd) != 0)
        return systemError("cannot flush the output", m_tempPath);
    if (::close(m_fd) != 0) {
        m_fd = -1;
        return systemError("cannot close the output", m_tempPath);
    }
    m_fd = -1;
    if (::rename(m_tempPath.c_str(), m_targetPath.c_str()) != 0)
        return systemError("cannot move the output into place", m_targetPath);
    m_committed = true;
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
