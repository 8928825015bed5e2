#pragma once
// A file mapped read-only into memory. The mapping is never writable: nothing the user has is
// modified by opening it.
//
// Files change under a running app (a download rewritten in place, a `cp` over the model). The
// mapping is registered with MappedRegionGuard, so pages that vanish read as zeros instead of
// killing the process; the header is copied into private memory as it is parsed, so metadata and
// the tensor index stay as validated whatever happens to the file; and checkUnchanged() tells
// the app that the file on disk is no longer the one it shows.

#include "core/base/Result.h"
#include "core/gguf/RemoteRegion.h"

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <memory>
#include <span>
#include <string>

namespace gguf {

class MappedFile {
public:
    static Result<std::shared_ptr<MappedFile>> open(const std::string& path);
    // A file whose bytes come from `source` (a URL: core/remote), shown under `name`; see RemoteRegion.
    static Result<std::shared_ptr<MappedFile>> openFrom(const std::string& name, std::shared_ptr<ByteRangeSource> source);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    std::uint64_t size() const { return m_size; }
    const std::uint8_t* data() const { return m_data; }
    std::span<const std::uint8_t> bytes() const { return {m_data, static_cast<std::size_t>(m_size)}; }

    // The header is copied into private memory while it is parsed, never read from the file's
    // pages: copyPrefix(end) makes bytes [0, end) (rounded up to whole pages, at least a chunk
    // further) private copies read from the file, at the same addresses, and returns how far
    // the copy now reaches; less than `end` when reading failed (copyFailure() says why). What
    // the parser validates is therefore what stays, whatever happens to the file later, for
    // headers of every size, and no header page is held twice.
    // Logically const: the bytes seen through data() do not change.
    std::uint64_t copyPrefix(std::uint64_t end) const;
    // A summary open's elided array (see HeaderRetention): the bytes before `end` that are not
    // copied yet stay the file's pages and are never kept; copying resumes at the page holding
    // `end`. Returns the new end of the copy (at most `end`). No-op for a remote file.
    std::uint64_t skipPrefixCopy(std::uint64_t end) const;
    // Unmaps the file pages wholly inside [begin, end) that lie past the private copy (read once
    // by a summary walk, not kept), so they do not add up in the process's resident memory. The
    // private copy is never touched. No-op for a remote file.
    void releaseUncopied(std::uint64_t begin, std::uint64_t end) const;
    const std::string& copyFailure() const { return m_copyFailure; }
    // Once the header is parsed: hands the pages past `length` back to the file (tensor data is
    // read live) and checks that the file did not change while it was being opened.
    Status finishPrefixCopy(std::uint64_t length) const;

    // Ok while the file on disk is still the one that was mapped; otherwise says what happened:
    // truncated, modified, replaced by another file, deleted, or pages vanished during a read.
    Status checkUnchanged() const;
    bool stillIntact() const { return checkUnchanged().ok(); }
    // The read-only descriptor of the mapped file, for copies the kernel makes (Save As); use
    // offsets (pread, copy_file_range with an input offset), never its file position.
    int descriptor() const { return m_fd; }
    // The remote region behind a file from openFrom, else nullptr.
    RemoteRegion* remote() const { return m_remote.get(); }

private:
    MappedFile(std::string path, const std::uint8_t* data, std::uint64_t size, int fd);

    std::string m_path;
    const std::uint8_t* m_data = nullptr;
    std::uint64_t m_size = 0;
    int m_fd = -1;  // kept open (read-only) to re-check the file that was mapped
    int m_guardSlot = -1;
    std::uint64_t m_device = 0;
    std::uint64_t m_inode = 0;
    timespec m_modified{};
    timespec m_statusChanged{};  // ctime
    mutable std::uint64_t m_copiedEnd = 0;  // bytes [0, m_copiedEnd) are private (a page multiple, or m_size), but for holes
    mutable std::uint64_t m_privateBytes = 0;  // bytes copied so far; less than m_copiedEnd past holes (skipPrefixCopy)
    mutable std::string m_copyFailure;
    std::unique_ptr<RemoteRegion> m_remote;
};

}  // namespace gguf
