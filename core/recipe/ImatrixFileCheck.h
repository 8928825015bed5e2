#pragma once
// Whether a path is an importance matrix llama-quantize could take: a GGUF file (llama-imatrix
// --output-format gguf, general.type "imatrix" or tensors named *.in_sum2) or a legacy .dat
// file (i32 entry count, then length-prefixed names). Only the recipe needs this: the rules
// depend on "an imatrix is given", not on its values. Reading the values is core/imatrix's job.

#include "base/Result.h"

#include <string>

namespace gguf {

enum class ImatrixFormat { Gguf, LegacyDat };

struct ImatrixFileInfo {
    ImatrixFormat format = ImatrixFormat::Gguf;
    std::uint64_t entryCount = 0;  // weight matrices covered
    std::string dataset;           // imatrix.datasets[0] or the .dat trailer, when readable
    std::uint64_t chunkCount = 0;  // imatrix.chunk_count or the .dat trailer's last chunk
};

Result<ImatrixFileInfo> checkImatrixFile(const std::string& path);

}  // namespace gguf
