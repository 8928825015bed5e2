#pragma once
// Row-range dequantization into caller-provided buffers. Callers choose the ranges (and so the
// threads and the memory): nothing here allocates in proportion to the tensor.

#include "core/base/Result.h"
#include "core/gguf/TensorSlice.h"

#include <functional>
#include <span>

namespace gguf {

// Which values a dequantization gives: a weight's effective values, the stored ones times its
// companion scale when it has one (TensorInfo::outputScale, CompanionScales.h), which every view
// shows; or the stored values alone, which the forward pass multiplies by, applying the scale to
// each product afterwards as llama.cpp does.
enum class WeightValues { Effective, Stored };

// Writes rows [rowBegin, rowEnd) of `tensor` (ne[0] floats each) to `out`, which must hold
// exactly that many floats. Fails for types without a dequantization (unknown, retired) and, for
// effective values, for a scale llama.cpp would not load.
Status dequantizeRows(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::span<float> out,
                      WeightValues values = WeightValues::Effective);

// The same for elements [begin, end) in storage order; both ends must fall on block boundaries.
Status dequantizeElements(const TensorInfo& tensor, std::uint64_t begin, std::uint64_t end, std::span<float> out,
                          WeightValues values = WeightValues::Effective);

class TaskExecutor;

// Streams a slice through `consume` in chunks of about `maxChunkElements` floats (whole blocks,
// at least one). `consume` returns false to stop early (cancellation). With an `executor`, each
// chunk is dequantized by all of its threads (block-aligned pieces) before `consume` sees it; the
// values and the order are the same either way.
using ChunkConsumer = std::function<bool(std::span<const float> values, std::uint64_t firstElement)>;
Status forEachChunk(const TensorSlice& slice, std::uint64_t maxChunkElements, const ChunkConsumer& consume,
                    TaskExecutor* executor = nullptr);

}  // namespace gguf
