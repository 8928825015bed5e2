#pragma once
// Writes an importance matrix in either of llama-imatrix's formats, byte for byte as
// llama-imatrix's save_imatrix (GGUF) and save_imatrix_legacy (.dat) write the same sums
// (tools/imatrix/imatrix.cpp at llama.cpp 80fb11a). Outputs are written to a temporary file and
// renamed into place (core/write/ByteSink.h).

#include "core/base/Result.h"
#include "core/imatrix/ImatrixSums.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

enum class ImatrixOutputFormat { Gguf, LegacyDat };

// What the written file does not hold of the sums, for the writer's caller to tell the user.
struct ImatrixWriteNotes {
    // Matrices whose every expert had no tokens: the .dat format skips them (GGUF keeps them).
    std::vector<std::string> skippedNoData;
    // Matrices with some experts of no tokens: the .dat stores 1 for those experts' values.
    std::vector<std::string> partialData;
    // Matrices of several experts whose per-expert counts the .dat format cannot keep (it stores
    // one ncall per matrix and values already divided by each expert's count).
    std::vector<std::string> perExpertCountsDropped;
};

// `chunkSize` is llama-imatrix's n_ctx / n_parallel: the GGUF file records it, and the .dat
// derives each matrix's ncall from it (ceil(largest count / chunk size)). 1 to 2^20.
Result<ImatrixWriteNotes> writeImatrix(const ImatrixSums& sums, std::int64_t chunkSize, ImatrixOutputFormat format,
                                       const std::string& path);

// The bytes writeImatrix(.., LegacyDat, ..) puts in the file.
Result<std::string> encodeImatrixDat(const ImatrixSums& sums, std::int64_t chunkSize, ImatrixWriteNotes* notes = nullptr);

// The format a path names: LegacyDat for a name ending in ".dat", else GGUF (llama-imatrix's
// own default; it writes GGUF to any other name).
ImatrixOutputFormat imatrixFormatForPath(const std::string& path);

}  // namespace gguf
