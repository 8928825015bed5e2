#pragma once
// Where exported bytes go: a file written atomically (temp name, then rename) or a descriptor
// such as standard output.

#include "Result.h"

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
};

// Writes to `<dir>/.<name>.XXXXXX` beside the target and renames it over the target on commit();
// destroyed without commit, it removes the temp file, so a failed or cancelled export leaves
// nothing behind and never a half-written target.
class AtomicFileSink final : public ByteSink {
public:
    static Result<std::unique_ptr<AtomicFileSink>> create(const std::string& targetPath);
    ~AtomicFileSink() override;
    Status write(const void* data, std::size_t size) override;
    Status commit() override;

private:
    AtomicFileSink(std::string targetPath, std::string tempPath, int fd);

    std::string m_targetPath;
    std::string m_tempPath;
    int m_fd = -1;
    bool m_committed = false;
};

// Writes to a descriptor the caller owns (standard output for `-o -`).
class DescriptorSink final : public ByteSink {
public:
    DescriptorSink(int fd, std::string name) : m_fd(fd), m_name(std::move(name)) {}
    Status write(const void* data, std::size_t size) override;
    Status commit() override { return Ok{}; }

private:
    int m_fd;
    std::string m_name;
};

// True when both paths name the same existing file (same device and inode).
bool isSameFile(const std::string& a, const std::string& b);

}  // namespace gguf
