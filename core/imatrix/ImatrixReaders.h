#pragma once
// Internal to core/imatrix: the two format readers ImportanceMatrix::load dispatches to.

#include "core/imatrix/ImportanceMatrix.h"

namespace gguf {

class GgufFile;

inline Error imatrixError(std::string message, std::uint64_t offset = Error::kNoOffset)
{
    return Error{std::move(message), offset, {}};
}

class ImatrixGgufReader {
public:
    static Status read(const GgufFile& file, ImportanceMatrix& out);
};

// Reads the legacy format from `data` (the whole file). Every count is checked against the bytes
// left before anything is allocated for it.
class ImatrixLegacyReader {
public:
    static Status read(const std::uint8_t* data, std::uint64_t size, ImportanceMatrix& out);
};

}  // namespace gguf
