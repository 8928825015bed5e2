#pragma once
// A run of whole rows of one tensor: the whole tensor, or one expert of a 3-D expert tensor.
// Everything that reads weights (export, statistics, views) takes a slice.

#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"

#include <string>
#include <vector>

namespace gguf {

struct TensorSlice {
    const TensorInfo* tensor = nullptr;
    std::uint64_t firstRow = 0;
    std::uint64_t rowCount = 0;
    // NumPy order (slowest first), trimmed to the stored dims: [ne[3], ne[2], ne[1], ne[0]] for a
    // 4-D tensor, [ne[1], ne[0]] for an expert, [] for a scalar.
    std::vector<std::uint64_t> shape;

    std::uint64_t rowLength() const { return static_cast<std::uint64_t>(tensor->ne[0]); }
    std::uint64_t elementCount() const { return rowCount * rowLength(); }
};

TensorSlice wholeTensor(const TensorInfo& tensor);

// Expert `expert` of an expert tensor with ne = [n_in, n_out, n_expert]: the ne[0]*ne[1]
// contiguous elements whose ne[2] index is `expert`. Rows are whole blocks, so the slice always
// starts on a block boundary.
Result<TensorSlice> expertSlice(const TensorInfo& tensor, std::uint64_t expert);

}  // namespace gguf
