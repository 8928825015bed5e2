#include "core/write/OutputLock.h"

#include "core/write/ByteSink.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gguf {

Result<OutputLock> OutputLock::acquire(const std::string& outputPath)
{
    if (outputPath.empty() || outputPath == "-")
        return OutputLock();
    auto resolved = resolveOutputPath(outputPath);
    if (!resolved)
        return resolved.error();
    struct stat existing {};
    if (resolved->throughProcessDescriptor || (::stat(resolved->path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)))
        return OutputLock();  // written in place (or refused) by openOutputFile: nothing is renamed over it
    OutputLock lock;
    lock.m_lockPath = lockPathFor(resolved->path);
    // A holder removes the file while it still holds the lock. So a lock taken on a file that no
    // longer has the name (removed between our open and our flock) is no lock: try again.
    for (int attempt = 0; attempt < 16; ++attempt) {
        // Never through a symlink someone put there, and nothing is written into the file.
        const int fd = ::open(lock.m_lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0666);
        if (fd < 0)
            return Error{"cannot lock the output: cannot open " + lock.m_lockPath + ": " + std::strerror(errno), Error::kNoOffset, outputPath};
        struct stat opened {};
        if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
            ::close(fd);
            return Error{"cannot lock the output: " + lock.m_lockPath + " is not a regular file", Error::kNoOffset, outputPath};
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            ::close(fd);
            if (error == EWOULDBLOCK)
                return Error{"another process is writing this output (it holds " + lock.m_lockPath
                                 + "); wait for it to end, or name another output",
                             Error::kNoOffset, outputPath};
            return Error{"cannot lock the output: " + std::string(std::strerror(error)), Error::kNoOffset, outputPath};
        }
        struct stat held {}, named {};
        if (::fstat(fd, &held) == 0 && ::lstat(lock.m_lockPath.c_str(), &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
            lock.m_fd = fd;
            return lock;
        }
        ::close(fd);
    }
    return Error{"cannot lock the output: " + lock.m_lockPath + " keeps being replaced", Error::kNoOffset, outputPath};
}

OutputLock::OutputLock(OutputLock&& other) noexcept : m_fd(other.m_fd), m_lockPath(std::move(other.m_lockPath))
{
    other.m_fd = -1;
    other.m_lockPath.clear();
}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept
{
    if (this != &other) {
        release();
        m_fd = other.m_fd;
        m_lockPath = std::move(other.m_lockPath);
        other.m_fd = -1;
        other.m_lockPath.clear();
    }
    return *this;
}

OutputLock::~OutputLock()
{
    release();
}

void OutputLock::release()
{
    if (m_fd < 0)
        return;
    // Removed while still held: whoever opened it meanwhile finds it no longer named and retries.
    // Only if the name is still ours (someone may have removed it and another run made its own).
    struct stat held {}, named {};
    if (::fstat(m_fd, &held) == 0 && ::lstat(m_lockPath.c_str(), &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino)
        ::unlink(m_lockPath.c_str());
    ::close(m_fd);
    m_fd = -1;
}

}  // namespace gguf
