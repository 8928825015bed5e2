#pragma once
// Where exported bytes go: a file written atomically (an unnamed temp file, then a rename) or
// a descriptor such as standard output.

#include "core/base/Result.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

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
    // The output as errors name it; empty when the sink has no name.
    virtual std::string name() const { return {}; }
};

// Writes to an unnamed file (O_TMPFILE) in the target's folder, so that a process killed in
// the middle, even by SIGKILL, leaves nothing; where the filesystem has no unnamed files, to
// `<dir>/.<name>.XXXXXX`, removed on SIGINT, SIGTERM and SIGHUP (TempFileCleanup.h). commit()
// gives the finished file a name and renames it over the target; destroyed without commit, it
// leaves nothing behind and never a half-written target. An existing target keeps its mode
// and, where this user may set it, its owner and group, as `cp` onto it or a shell redirect
// would. A symlink is followed to its target, which is replaced (the link stays); a target
// that exists but is not a regular file (device, FIFO, socket, folder), or that this run read
// as an input (base/InputFiles.h), is refused, never replaced. Errors name the target.
class AtomicFileSink final : public ByteSink {
public:
    static Result<std::unique_ptr<AtomicFileSink>> create(const std::string& targetPath);
    ~AtomicFileSink() override;
    Status write(const void* data, std::size_t size) override;
    Status commit() override;
    int descriptor() const override { return m_fd; }
    std::string name() const override { return m_targetPath; }

    // commit() in two steps, for a set of files committed together (commitTogether): every byte
    // on disk and the file given a temporary name beside the target; then the rename.
    Status prepare();
    const std::string& targetPath() const { return m_targetPath; }
    const std::string& preparedPath() const { return m_tempPath; }
    void markCommitted();

private:
    AtomicFileSink(std::string targetPath, std::string tempPath, int fd);

    std::string m_targetPath;
    std::string m_tempPath;  // empty while the file has no name
    int m_fd = -1;
    int m_cleanupSlot = -1;
    bool m_prepared = false;
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
    std::string name() const override { return m_name; }

private:
    int m_fd;
    std::string m_name;
};

// Where bytes for the output path `path` go. `-`: standard output. A regular file or a new
// name: AtomicFileSink (at the end of any symlinks). A device, FIFO or socket, or a path that
// names a descriptor of the process (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/...):
// DirectFileSink, written in place with no temp file; /dev/stdout, /dev/stderr and /dev/fd/N
// write through a copy of that descriptor, as the shell does. A FIFO with no reader is waited
// for, as `cat > fifo` does, after telling setOutputNotice's function. A folder, an empty path,
// and any file this run read as an input (whatever the path or descriptor that leads to it)
// are errors.
Result<std::unique_ptr<ByteSink>> openOutputFile(const std::string& path);

// Where openOutputFile says what it is waiting for ("waiting for a reader of F"); a process
// that has nowhere to say it leaves it unset.
void setOutputNotice(void (*notice)(const std::string& message));

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
    std::string name() const override { return m_name; }

private:
    int m_fd;
    std::string m_name;
};

// True when both paths name the same existing file (same device and inode).
bool isSameFile(const std::string& a, const std::string& b);

}  // namespace gguf
