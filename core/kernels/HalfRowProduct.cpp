#include "core/kernels/HalfRowProduct.h"

#include "core/gguf/TensorBytesRead.h"
#include "core/gguf/TensorInfo.h"
#include "core/kernels/LanePanel.h"
#include "core/types/GgmlType.h"

#include <string>

namespace gguf {

namespace lanes {
#if GGUFX_X86_KERNELS
void halfRowProductAvx512(const std::uint16_t* rows, std::int64_t rowCount, std::int64_t columns, const float* x, std::int64_t tokens,
                          float* y, std::int64_t yStride);
#endif
}  // namespace lanes

const std::uint16_t* storedHalfRows(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t rows)
{
    if (tensor.typeId != static_cast<std::uint32_t>(GgmlTypeId::F16) || tensor.bigEndian || tensor.traits == nullptr || tensor.data == nullptr
        || rows <= 0 || firstRow + static_cast<std::uint64_t>(rows) > tensor.rowCount())
        return nullptr;
    const std::uint8_t* src = tensor.data + firstRow * static_cast<std::uint64_t>(tensor.ne[0]) * sizeof(std::uint16_t);
    if (reinterpret_cast<std::uintptr_t>(src) % alignof(std::uint16_t) != 0)
        return nullptr;
    return reinterpret_cast<const std::uint16_t*>(src);
}

bool halfRowProductApplies(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t rows)
{
    return lanePanelIsFast() && tensor.ne[0] % 8 == 0 && storedHalfRows(tensor, firstRow, rows) != nullptr;
}

Status laneProductHalfRows(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t rows, const float* x, std::int64_t tokens,
                           float* y, std::int64_t yStride)
{
    if (!halfRowProductApplies(tensor, firstRow, rows) || tokens < 1 || tokens >= kLanePanelMinTokens)
        return Error{"tensor '" + std::string(tensor.name) + "': no f16 row product for these rows", Error::kNoOffset, {}};
    const std::int64_t columns = tensor.ne[0];
    const std::uint16_t* halves = storedHalfRows(tensor, firstRow, rows);
    return readTensorBytes(tensor, reinterpret_cast<const std::uint8_t*>(halves), static_cast<std::uint64_t>(rows * columns) * 2, [&] {
#if GGUFX_X86_KERNELS
        lanes::halfRowProductAvx512(halves, rows, columns, x, tokens, y, yStride);
#endif
    });
}

}  // namespace gguf
