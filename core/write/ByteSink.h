#pragma once
// Where exported bytes go: a file written atomically (temp name, then rename) or a descriptor
// such as standard output.

#include "base/Result.h"

#include <cstddef>
#include <memory>
#include <string>

namespace gguf {

class ByteSink {
public:
    virtual ~ByteSink() = default;
    virtual Status write(const void* data, std::size_t size) = 0;
    // Makes the output final: renames the temp file into place, or flushes the descriptor.
    virtual Status commit() = 0;
    // The descriptor the bytes go to, for kernel-side copies (copy_file_range, sendfile) that
    // keep the write position in step with write(); -1 when there is none.
    virtual int descriptor() const { return -1; }
};

// Writes to `<dir>/.<name>.XXXXXX` beside the target and renames it over the target on commit();
// destroyed without commit, it removes the temp file, so a failed or cancelled export leaves
// nothing behind and never a half-written target. A symlink is followed to its target, which is
// replaced (the link stays); a target that exists but is not a regular file (device, FIFO,
// socket, folder) is refused, never replaced. Errors name the target, not the temp file.
class AtomicFileSink final : public ByteSink {
public:
    static Result<std::unique_ptr<AtomicFileSink>> create(const std::string& targetPath);
    ~AtomicFileSink() override;
    Status write(const void* data, std::size_t size) override;
    Status commit() override;
    int descriptor() const override { return m_fd; }

private:
    AtomicFileSink(std::string targetPath, std::string tempPath, int fd);

    std::string m_targetPath;
    std::string m_tempPath;
    int m_fd = -1;
    bool m_committed = false;
};

// Writes into an output that must not be replaced (a device, a FIFO, /dev/stdout); owns `fd`.
class DirectFileSink final : public ByteSink {
public:
    DirectFileSink(int fd, std::string name) : m_fd(fd), m_name(std::move(name)) {}
    ~DirectFileSink() override;
    Status write(const void* data, std::size_t size) override;
    Status commit() override;  // closes, reporting a failed close
    int descriptor() const override { return m_fd; }

private:
    int m_fd;
    std::string m_name;
};

// Where bytes for the output path `path` go. A regular file or a new name: AtomicFileSink (at
// the end of any symlinks). A device, FIFO or socket, or a path that names a descriptor of the
// process (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/...): DirectFileSink, written in place
// with no temp file; /dev/stdout, /dev/stderr and /dev/fd/N write through a copy of that
// descriptor, as the shell does. A folder is an error.
Result<std::unique_ptr<ByteSink>> openOutputFile(const std::string& path);

// The path an output's bytes end up at: `path` with the symlinks of its last component
// followed; `throughProcessDescriptor` when a link leads into /proc or /dev/fd (not a path).
struct ResolvedOutput {
    std::string path;
    bool throughProcessDescriptor = false;
};
Result<ResolvedOutput> resolveOutputPath(const std::string& path);

// Writes to a descriptor the caller owns (standard output for `-o -`).
class DescriptorSink final : public ByteSink {
public:
    DescriptorSink(int fd, std::string name) : m_fd(fd), m_name(std::move(name)) {}
    Status write(const void* data, std::size_t size) override;
    Status commit() override { return Ok{}; }
    int descriptor() const override { return m_fd; }

private:
    int m_fd;
    std::string m_name;
};

// True when both paths name the same existing file (same device and inode).
bool isSameFile(const std::string& a, const std::string& b);

}  // namespace gguf
