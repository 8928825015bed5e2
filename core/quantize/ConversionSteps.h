#pragma once
// Steps both converters share (quantize/Conversion: one target type; recipe/RecipeConversion:
// llama-quantize's per-tensor types): progress and cancel over the whole file, and copying a
// tensor's stored bytes unchanged (little-endian block by block for a big-endian input).

#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"
#include "core/write/ByteSink.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace gguf {

inline Error conversionError(const std::string& message)
{
    return Error{message, Error::kNoOffset, {}};
}

// Counts input elements over all tensors, reports them and checks the cancel flag.
class ConversionProgress {
public:
    using Report = std::function<void(std::uint64_t done, std::uint64_t total)>;
    ConversionProgress(const Report& report, const std::atomic<bool>* cancel, std::uint64_t total)
        : m_report(report), m_cancel(cancel), m_total(total)
    {
    }
    Status advance(std::uint64_t elements);

private:
    const Report& m_report;
    const std::atomic<bool>* m_cancel;
    std::uint64_t m_total;
    std::uint64_t m_done = 0;
};

// Writes `tensor`'s stored bytes to `out`, `blocksPerChunk` blocks per write (remote bytes are
// fetched first), advancing `progress` by the elements written.
Status writeStoredBlocks(const TensorInfo& tensor, ByteSink& out, std::uint64_t blocksPerChunk, ConversionProgress& progress);

}  // namespace gguf
