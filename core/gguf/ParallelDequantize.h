#pragma once
// dequantizeRows on the caller's executor: the rows are cut into one contiguous range per thread, so each
// thread writes one large span of the output (large spans stream past the caches, see
// KernelIsa.h) and the result is identical to a single dequantizeRows call.

#include "core/base/RowRanges.h"
#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"
#include "core/gguf/Dequantize.h"

#include <span>

namespace gguf {

Status dequantizeRowsParallel(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::span<float> out,
                              TaskExecutor* executor, WeightValues values = WeightValues::Effective);

// Elements [begin, end) in storage order (both on block boundaries), one contiguous
// block-aligned piece per thread; identical to a single dequantizeElements call.
Status dequantizeElementsParallel(const TensorInfo& tensor, std::uint64_t begin, std::uint64_t end, std::span<float> out,
                                  TaskExecutor* executor, WeightValues values = WeightValues::Effective);

}  // namespace gguf
