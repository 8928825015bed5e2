#pragma once
// Copies a byte range of an open file into a ByteSink without passing it through user memory
// when the kernel can: copy_file_range (same or different file systems, reflinks where the file
// system has them), else sendfile (any output, pipes included), else pread + write through a
// 1 MiB buffer. Whatever the method, the output's write position moves as write() would move it.

#include "core/base/Result.h"
#include "core/write/ByteSink.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gguf {

class FileRangeCopy {
public:
    enum class Method { CopyFileRange, SendFile, ReadWrite };
    static constexpr std::uint64_t kPieceBytes = std::uint64_t{64} << 20;  // between progress calls

    // Forces a method (and those after it), e.g. so tests reach the read/write fallback.
    explicit FileRangeCopy(Method firstMethod = Method::CopyFileRange) : m_method(firstMethod) {}

    // Copies `length` bytes at `offset` of `sourceFd` (named `sourceName` in errors) to `sink`.
    // `piece` hears the bytes of each piece copied and returns false to stop (Cancelled error).
    Status copy(int sourceFd, const std::string& sourceName, std::uint64_t offset, std::uint64_t length, ByteSink& sink,
                const std::function<bool(std::uint64_t bytes)>& piece = {});

    // The method the last bytes went through.
    Method method() const { return m_method; }
    static const char* methodName(Method method);

private:
    // Each returns bytes copied (> 0), 0 at the source's end, or -1 when this method does not
    // apply to these descriptors (the caller moves on to the next method); errors otherwise.
    Result<std::int64_t> copyFileRangePiece(int in, std::uint64_t offset, std::uint64_t size, int out);
    Result<std::int64_t> sendFilePiece(int in, std::uint64_t offset, std::uint64_t size, int out);
    Result<std::int64_t> readWritePiece(int in, std::uint64_t offset, std::uint64_t size, ByteSink& sink);

    Error copyError(int error, std::uint64_t offset) const;

    Method m_method;
    std::string m_sourceName;
    std::string m_sinkName;
    std::vector<char> m_buffer;
};

}  // namespace gguf
