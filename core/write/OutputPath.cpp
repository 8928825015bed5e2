// openOutputFile: the one way outputs are opened, and where an output is compared with the
// run's inputs (base/InputFiles.h) whatever path or descriptor leads to it.

#include "core/write/ByteSink.h"

#include "core/base/InputFiles.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gguf {

namespace {
std::atomic<void (*)(const std::string&)> g_notice{nullptr};

Error systemError(const std::string& what, const std::string& path)
{
    return Error{what + ": " + std::strerror(errno), Error::kNoOffset, path};
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

// "-" or "/dev/stdout" -> 1, "/dev/fd/3" or "/proc/self/fd/3" -> 3; -1 for anything else.
// Written through a copy of that descriptor, as the shell does, so `>>` keeps appending.
int descriptorNamedBy(const std::string& path)
{
    if (path == "-" || path == "/dev/stdout")
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

// A FIFO opened for writing blocks until a reader comes. Say so first, or a command that has
// done all its work looks hung; then wait, as `cat > fifo` does: in `cmd -o fifo & reader <
// fifo` the reader may well come second.
Result<int> openFifoForWriting(const std::string& path)
{
    int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENXIO) {
        if (auto notice = g_notice.load())
            notice("waiting for a reader of " + path);
        fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    }
    if (fd < 0)
        return systemError("cannot open the output", path);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
}  // namespace

void setOutputNotice(void (*notice)(const std::string& message))
{
    g_notice = notice;
}

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

Result<std::unique_ptr<ByteSink>> openOutputFile(const std::string& path)
{
    if (path.empty())
        return Error{"the output path is empty; name a file (or - for standard output)", Error::kNoOffset, path};
    if (const int named = descriptorNamedBy(path); named >= 0) {
        const std::string name = named == STDOUT_FILENO ? "standard output" : path;
        struct stat info {};
        if (::fstat(named, &info) != 0)
            return systemError("cannot write to that descriptor", name);
        if (Status s = refuseInputAsOutput(info, name); !s)
            return s.error();
        if (path == "-")  // ours to write, not to close
            return std::unique_ptr<ByteSink>(new DescriptorSink(STDOUT_FILENO, name));
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
    if (exists)
        if (Status s = refuseInputAsOutput(existing, path); !s)
            return s.error();
    if (resolved->throughProcessDescriptor || (exists && !S_ISREG(existing.st_mode))) {
        // Devices, FIFOs and descriptors are written into as they are, never replaced.
        auto fd = exists && S_ISFIFO(existing.st_mode) ? openFifoForWriting(path) : Result<int>(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC));
        if (fd && *fd < 0)
            return systemError("cannot open the output", path);
        if (!fd)
            return fd.error();
        struct stat opened {};
        if (::fstat(*fd, &opened) == 0)
            if (Status s = refuseInputAsOutput(opened, path); !s) {
                ::close(*fd);
                return s.error();
            }
        return std::unique_ptr<ByteSink>(new DirectFileSink(*fd, path));
    }
    auto atomic = AtomicFileSink::create(resolved->path);
    if (!atomic)
        return atomic.error();
    return std::unique_ptr<ByteSink>(std::move(atomic.value()));
}

}  // namespace gguf
