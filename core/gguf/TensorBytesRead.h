#pragma once
// One guarded read of a tensor's stored bytes, as every reader of them needs it: a remote range
// fetched first (RemoteRegion.h), then the read under a MappedReadWatch, so that a file
// truncated while it is read (its vanished pages read as zeros, MappedRegionGuard.h) is
// reported instead of read as data.

#include "core/base/Result.h"

#include <cstdint>
#include <functional>

namespace gguf {

struct TensorInfo;

// Makes [bytes, bytes + size) of `tensor` readable, runs `read` over them, and reports a fetch
// that failed ("tensor 'x': ...") or bytes that vanished meanwhile (tensorChangedOnDisk). `read`
// does not run when the fetch fails.
Status readTensorBytes(const TensorInfo& tensor, const std::uint8_t* bytes, std::uint64_t size, const std::function<void()>& read);

}  // namespace gguf
