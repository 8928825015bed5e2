#pragma once
// Where the bytes of a file come from when they are not on this disk (core/remote implements it
// over HTTP). MappedFile::openFrom gives such a file the same shape as a mapped one: one address
// range of the file's size, with bytes fetched into it when they are asked for (RemoteRegion).

#include "core/base/Result.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gguf {

struct ByteRange {
    std::uint64_t offset = 0;
    std::span<std::uint8_t> out;  // exactly out.size() bytes from `offset` are written here
};

class ByteRangeSource {
public:
    virtual ~ByteRangeSource() = default;
    virtual std::uint64_t size() const = 0;
    // Fills every range completely or fails; several ranges may be fetched at once.
    virtual Status read(const std::vector<ByteRange>& ranges) = 0;
    // Ok while every response so far came from the file first seen (its ETag / Last-Modified);
    // cheap: it reports what reads noticed, it does not ask the server.
    virtual Status checkUnchanged() const = 0;
    // How many bytes are read at least per request, so that callers align to it (the first read
    // of the header is this big too).
    virtual std::uint64_t preferredReadSize() const { return 1u << 20; }
};

}  // namespace gguf
