#include "core/edit/FileRangeCopy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/sendfile.h>
#include <unistd.h>

namespace gguf {

namespace {
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
constexpr std::uint64_t kMaxSyscallBytes = 0x7ffff000;  // what Linux moves per call at most

bool methodDoesNotApply(int error)
{
    // Descriptors or file systems this method cannot serve: try the next method, nothing was
    // copied. (EXDEV: across file systems on some kernels; EINVAL: a pipe, O_APPEND, ...).
    return error == EXDEV || error == EINVAL || error == ENOSYS || error == EOPNOTSUPP || error == EBADF || error == ETXTBSY
        || error == EPERM || error == ESPIPE;
}
}  // namespace

// A kernel copy fails for either side. The errors only writing can give (a full disk, a quota,
// a size limit, a read-only output) name the output, at no offset of the input; the rest name
// the input, at the offset being read.
Error FileRangeCopy::copyError(int error, std::uint64_t offset) const
{
    if (error == ENOSPC || error == EDQUOT || error == EFBIG || error == EROFS)
        return Error{std::string("writing the output failed: ") + std::strerror(error), Error::kNoOffset, m_sinkName};
    return Error{std::string("copying tensor data failed: ") + std::strerror(error), offset, m_sourceName};
}

const char* FileRangeCopy::methodName(Method method)
{
    switch (method) {
    case Method::CopyFileRange: return "copy_file_range";
    case Method::SendFile: return "sendfile";
    case Method::ReadWrite: return "read/write";
    }
    return "?";
}

Result<std::int64_t> FileRangeCopy::copyFileRangePiece(int in, std::uint64_t offset, std::uint64_t size, int out)
{
    if (out < 0)
        return std::int64_t{-1};
    loff_t from = static_cast<loff_t>(offset);
    for (;;) {
        const ssize_t copied = ::copy_file_range(in, &from, out, nullptr, static_cast<std::size_t>(size), 0);
        if (copied >= 0)
            return static_cast<std::int64_t>(copied);
        if (errno == EINTR)
            continue;
        if (methodDoesNotApply(errno))
            return std::int64_t{-1};
        return copyError(errno, offset);
    }
}

Result<std::int64_t> FileRangeCopy::sendFilePiece(int in, std::uint64_t offset, std::uint64_t size, int out)
{
    if (out < 0)
        return std::int64_t{-1};
    off_t from = static_cast<off_t>(offset);
    for (;;) {
        const ssize_t copied = ::sendfile(out, in, &from, static_cast<std::size_t>(size));
        if (copied >= 0)
            return static_cast<std::int64_t>(copied);
        if (errno == EINTR)
            continue;
        if (methodDoesNotApply(errno))
            return std::int64_t{-1};
        return copyError(errno, offset);
    }
}

Result<std::int64_t> FileRangeCopy::readWritePiece(int in, std::uint64_t offset, std::uint64_t size, ByteSink& sink)
{
    if (m_buffer.empty())
        m_buffer.resize(kBufferBytes);
    const std::size_t wanted = static_cast<std::size_t>(std::min<std::uint64_t>(size, m_buffer.size()));
    for (;;) {
        const ssize_t got = ::pread(in, m_buffer.data(), wanted, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return Error{std::string("reading tensor data failed: ") + std::strerror(errno), offset, m_sourceName};
        if (got > 0)
            if (Status s = sink.write(m_buffer.data(), static_cast<std::size_t>(got)); !s)
                return s.error();
        return static_cast<std::int64_t>(got);
    }
}

Status FileRangeCopy::copy(int sourceFd, const std::string& sourceName, std::uint64_t offset, std::uint64_t length, ByteSink& sink,
                           const std::function<bool(std::uint64_t bytes)>& piece)
{
    m_sourceName = sourceName;
    m_sinkName = sink.name();
    const int out = sink.descriptor();
    while (length > 0) {
        const std::uint64_t pieceSize = std::min(length, kPieceBytes);
        std::uint64_t left = pieceSize;
        while (left > 0) {
            const std::uint64_t size = std::min(left, kMaxSyscallBytes);
            Result<std::int64_t> copied = std::int64_t{-1};
            if (m_method == Method::CopyFileRange) {
                copied = copyFileRangePiece(sourceFd, offset, size, out);
                if (copied && *copied < 0)
                    m_method = Method::SendFile;
            }
            if (m_method == Method::SendFile) {
                copied = sendFilePiece(sourceFd, offset, size, out);
                if (copied && *copied < 0)
                    m_method = Method::ReadWrite;
            }
            if (m_method == Method::ReadWrite)
                copied = readWritePiece(sourceFd, offset, size, sink);
            if (!copied)
                return copied.error();
            if (*copied == 0)
                return Error{"the file changed on disk: it ends before the tensor data it had when it was opened", offset, sourceName};
            offset += static_cast<std::uint64_t>(*copied);
            left -= static_cast<std::uint64_t>(*copied);
        }
        length -= pieceSize;
        if (piece && !piece(pieceSize))
            return Error{"cancelled", Error::kNoOffset, {}};
    }
    return Ok{};
}

}  // namespace gguf
