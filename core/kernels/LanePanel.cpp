#include "core/kernels/LanePanel.h"

#include "core/gguf/TensorBytesRead.h"
#include "core/gguf/TensorInfo.h"
#include "core/gguf/Dequantize.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/HalfRowProduct.h"
#include "core/kernels/LaneProduct.h"
#include "core/kernels/LaneProductBlocking.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

namespace gguf {

namespace lanes {
#if GGUFX_X86_KERNELS
void packLanePanelGroupF16Avx512(const std::uint16_t* rows, std::int64_t count, std::int64_t columns, float* group);
void lanePanelProductAvx512(const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows, float* y,
                            std::int64_t yStride, std::vector<float>& scratch);
#endif
}  // namespace lanes

namespace {

// The lane order read from the panel, one output at a time: the reference for the kernel.
void portablePanelProduct(const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows, float* y,
                          std::int64_t yStride)
{
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* group = panel + (r / kLanePanelGroupRows) * kLanePanelGroupRows * columns;
        const std::int64_t i = r % kLanePanelGroupRows;
        for (std::int64_t t = 0; t < tokens; ++t) {
            const float* xt = x + t * columns;
            float l[8] = {};
            for (std::int64_t k = 0; k < columns; k += 8) {
                const float* w = group + k * kLanePanelGroupRows + i * 8;
                for (int q = 0; q < 8; ++q)
                    l[q] = std::fma(w[q], xt[k + q], l[q]);
            }
            y[t * yStride + r] = lanes::sumLanes(l);
        }
    }
}

}  // namespace

void packLanePanelGroup(const float* rows, std::int64_t count, std::int64_t columns, float* group)
{
    const float* row[kLanePanelGroupRows];
    for (std::int64_t i = 0; i < kLanePanelGroupRows; ++i)
        row[i] = rows + std::min(i, count - 1) * columns;
    // The output in order (one stream of whole cache lines), the 8 rows read side by side.
    float* out = group;
    for (std::int64_t k = 0; k < columns; k += 8)
        for (std::int64_t i = 0; i < kLanePanelGroupRows; ++i, out += 8)
            std::memcpy(out, row[i] + k, 8 * sizeof(float));
}

void packLanePanelGroupF16(const std::uint16_t* rows, std::int64_t count, std::int64_t columns, float* group)
{
#if GGUFX_X86_KERNELS
    if (lanePanelIsFast()) {
        lanes::packLanePanelGroupF16Avx512(rows, count, columns, group);
        return;
    }
#endif
    const std::uint16_t* row[kLanePanelGroupRows];
    for (std::int64_t i = 0; i < kLanePanelGroupRows; ++i)
        row[i] = rows + std::min(i, count - 1) * columns;
    float* out = group;
    for (std::int64_t k = 0; k < columns; k += 8)
        for (std::int64_t i = 0; i < kLanePanelGroupRows; ++i)
            for (std::int64_t q = 0; q < 8; ++q)
                *out++ = f16ToF32(row[i][k + q]);
}

Status packLanePanelGroupFrom(const TensorInfo& tensor, std::uint64_t firstRow, std::int64_t count, float* group,
                              std::vector<float>& staging)
{
    const std::int64_t columns = tensor.ne[0];
    const std::uint16_t* halves = storedHalfRows(tensor, firstRow, count);
    if (!halves) {
        staging.resize(static_cast<std::size_t>(count * columns));
        if (Status done = dequantizeRows(tensor, firstRow, firstRow + static_cast<std::uint64_t>(count), staging, WeightValues::Stored); !done)
            return done;
        packLanePanelGroup(staging.data(), count, columns, group);
        return Ok{};
    }
    return readTensorBytes(tensor, reinterpret_cast<const std::uint8_t*>(halves), static_cast<std::uint64_t>(count * columns) * 2,
                           [&] { packLanePanelGroupF16(halves, count, columns, group); });
}

void packLanePanel(const float* weights, std::int64_t rows, std::int64_t columns, float* panel)
{
    for (std::int64_t r = 0; r < rows; r += kLanePanelGroupRows)
        packLanePanelGroup(weights + r * columns, std::min(kLanePanelGroupRows, rows - r), columns, panel + r * columns);
}

bool lanePanelIsFast()
{
    return laneProductKernel() >= 2;
}

void laneProductPanelWith(int kernel, const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows,
                          float* y, std::int64_t yStride, std::vector<float>& scratch)
{
    if (tokens <= 0 || rows <= 0)
        return;
#if GGUFX_X86_KERNELS
    if (kernel >= 2 && lanePanelIsFast()) {
        lanes::lanePanelProductAvx512(x, tokens, panel, columns, rows, y, yStride, scratch);
        return;
    }
#endif
    (void)kernel;
    (void)scratch;
    portablePanelProduct(x, tokens, panel, columns, rows, y, yStride);
}

void laneProductPanel(const float* x, std::int64_t tokens, const float* panel, std::int64_t columns, std::int64_t rows, float* y,
                      std::int64_t yStride, std::vector<float>& scratch)
{
    laneProductPanelWith(2, x, tokens, panel, columns, rows, y, yStride, scratch);
}

}  // namespace gguf
