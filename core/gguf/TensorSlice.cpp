#include "core/gguf/TensorSlice.h"

namespace gguf {

TensorSlice wholeTensor(const TensorInfo& tensor)
{
    TensorSlice slice{&tensor, 0, tensor.rowCount(), {}};
    for (std::uint32_t d = tensor.nDims; d-- > 0;)
        slice.shape.push_back(static_cast<std::uint64_t>(tensor.ne[d]));
    return slice;
}

Result<TensorSlice> expertSlice(const TensorInfo& tensor, std::uint64_t expert)
{
    const std::string what = "tensor '" + std::string(tensor.name) + "'";
    if (tensor.nDims < 3 || tensor.ne[3] != 1)
        return Error{what + " is not an expert tensor: experts need 3 dimensions [n_in, n_out, n_expert]", tensor.infoOffset, {}};
    const auto expertCount = static_cast<std::uint64_t>(tensor.ne[2]);
    if (expert >= expertCount)
        return Error{what + " has " + std::to_string(expertCount) + " experts; expert " + std::to_string(expert) + " does not exist",
                     tensor.infoOffset, {}};
    const auto rowsPerExpert = static_cast<std::uint64_t>(tensor.ne[1]);
    TensorSlice slice{&tensor, expert * rowsPerExpert, rowsPerExpert,
                      {rowsPerExpert, static_cast<std::uint64_t>(tensor.ne[0])}};
    return slice;
}

}  // namespace gguf
