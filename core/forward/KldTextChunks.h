#pragma once
// How a text is cut for the output KLD, one rule for every place that measures it (the CLI's
// `kld --text-file`, the Compare page's Output tab on a text file): llama-perplexity's windows
// of its default context, -c 512, each scored on its second half (OutputRunOptions::chunkSize);
// a text no longer than one window stays one sequence with every position but the last scored.

#include <cstddef>
#include <cstdint>

namespace gguf {

// llama-perplexity's default context (-c 512).
inline constexpr std::int64_t kDefaultKldTextChunk = 512;

// The OutputRunOptions::chunkSize for `tokenCount` tokens of a text and windows of `chunk`.
constexpr std::int64_t kldTextChunkSize(std::size_t tokenCount, std::int64_t chunk = kDefaultKldTextChunk)
{
    return chunk > 0 && static_cast<std::int64_t>(tokenCount) > chunk ? chunk : 0;
}

}  // namespace gguf
