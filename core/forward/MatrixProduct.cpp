#include "core/forward/MatrixProduct.h"

#include "core/forward/GgmlDots.h"
#include "core/forward/WeightLoader.h"

#include "core/base/BlasLibrary.h"
#include "core/base/RowRanges.h"
#include "core/gguf/Dequantize.h"
#include "core/kernels/HalfRowProduct.h"
#include "core/kernels/LanePanel.h"
#include "core/kernels/LaneProduct.h"
#include "core/kernels/QuantizedDot.h"
#include "core/quantize/Quantize.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

namespace gguf {

namespace {

// The activations as a product reads them: rounded to the weight's activation type (held in
// `storage`), or x itself when nothing is rounded.
const float* roundedActivations(const float* x, std::int64_t tokens, std::int64_t columns, ActivationRounding rounding,
                                std::vector<float>& storage)
{
    if (rounding == ActivationRounding::None)
        return x;
    storage.assign(x, x + tokens * columns);
    roundActivations(rounding, storage, columns);
    return storage.data();
}

// Weight rows converted to double at a time: bounds the double copy to a few MB.
constexpr std::int64_t kDoubleRowsPerBlock = 512;
// Rows per OpenBLAS call with cblas_sgemm sums.
constexpr std::uint64_t kBlasRowsPerBlock = 256;

void multiplyInDouble(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns, float* y,
                      std::int64_t yStride, TaskExecutor* executor)
{
    const std::vector<double> xd(x, x + tokens * columns);
    const auto k = static_cast<int>(columns);
    // Blocks of rows side by side on the pass's threads (OpenBLAS runs one thread per call).
    forEachRange(executor, fixedRowRanges(0, static_cast<std::uint64_t>(rows), kDoubleRowsPerBlock), [&](RowRange range) {
        const auto first = static_cast<std::int64_t>(range.begin);
        const auto count = static_cast<std::int64_t>(range.size());
        const std::vector<double> wd(weights + first * columns, weights + (first + count) * columns);
        std::vector<double> yd(static_cast<std::size_t>(tokens * count));
        blas().dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(tokens), static_cast<int>(count), k, 1.0, xd.data(), k,
                     wd.data(), k, 0.0, yd.data(), static_cast<int>(count));
        for (std::int64_t t = 0; t < tokens; ++t)
            for (std::int64_t r = 0; r < count; ++r)
                y[t * yStride + first + r] = static_cast<float>(yd[static_cast<std::size_t>(t * count + r)]);
    });
}

// tinyBLAS's f32 kernel on AVX2 (llamafile_sgemm, k a multiple of 8) and ggml_vec_dot_f32: 8
// float lanes, lane q taking fma(a[l + q], w[l + q], lane) for l = 0, 8, 16, ..., then the lane
// sum order of ggmlBlockLaneProduct (kernels/LaneProduct.h), over row ranges on the pass's
// threads. A range's carried lanes stay within about 256 KB.
void ggmlFloatLaneProduct(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns, float* y,
                          std::int64_t yStride, TaskExecutor* executor)
{
    std::int64_t perRange = std::clamp<std::int64_t>((256 * 1024 / 32) / std::max<std::int64_t>(tokens, 1), 8, 256) / 4 * 4;
    // At least a few ranges per thread, so the threads finish together.
    const auto threads = static_cast<std::int64_t>(executorThreads(executor));
    if (threads > 1)
        perRange = std::max<std::int64_t>(4, std::min(perRange, (rows / (4 * threads)) / 4 * 4));
    const auto ranges = fixedRowRanges(0, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(std::max<std::int64_t>(perRange, 1)));
    forEachRange(executor, ranges, [&](RowRange range) {
        thread_local std::vector<float> scratch;
        laneProductRows(x, tokens, weights, columns, static_cast<std::int64_t>(range.begin), static_cast<std::int64_t>(range.end), y,
                        yStride, scratch);
    });
}

// The lane product of a deferred weight: each row range is dequantized into a tile of its
// thread (about 2 MB, so it stays in the caches) and multiplied there, so the weight is read
// once in its stored form and its f32 copy never exists as a whole. Where the panel kernel runs
// (LanePanel.h) the tile is that panel, and the ranges are whole groups of its rows.
void deferredLaneProduct(const float* x, std::int64_t tokens, const WeightMatrix& weight, float* y, std::int64_t yStride)
{
    TaskExecutor* executor = weight.executor;
    const std::int64_t rows = weight.rows;
    const std::int64_t columns = weight.columns;
    std::int64_t perRange = std::clamp<std::int64_t>((2 * 1024 * 1024 / 4) / columns, 8, 512) / 8 * 8;
    const auto threads = static_cast<std::int64_t>(executorThreads(executor));
    if (threads > 1)
        perRange = std::max<std::int64_t>(8, std::min(perRange, (rows / (4 * threads)) / 8 * 8));
    const auto ranges = fixedRowRanges(0, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(perRange));
    const bool panel = lanePanelIsFast() && tokens >= kLanePanelMinTokens;
    forEachRange(executor, ranges, [&](RowRange range) {
        thread_local std::vector<float> tile;
        thread_local std::vector<float> scratch;
        const auto rangeRows = static_cast<std::int64_t>(range.size());
        if (panel) {
            // A group of rows at a time into a small buffer (it stays in L1 / L2), then into the
            // tile in the panel order (LanePanel.h): the tile is written once, already packed.
            // F16 rows are converted as they are packed (packLanePanelGroupFrom).
            thread_local std::vector<float> group;
            float* packed = alignedLanePanel(tile, lanePanelFloats(rangeRows, columns));
            for (std::int64_t r = 0; r < rangeRows; r += kLanePanelGroupRows) {
                const std::int64_t count = std::min(kLanePanelGroupRows, rangeRows - r);
                const std::uint64_t first = weight.sourceRowBegin + range.begin + static_cast<std::uint64_t>(r);
                float* target = packed + r * columns;
                if (!packLanePanelGroupFrom(*weight.source, first, count, target, group))
                    std::fill(target, target + kLanePanelGroupRows * columns, std::numeric_limits<float>::quiet_NaN());
            }
            laneProductPanel(x, tokens, packed, columns, rangeRows, y + range.begin, yStride, scratch);
            return;
        }
        // A few tokens against f16 rows: straight from the stored halves (HalfRowProduct.h).
        const std::uint64_t firstRow = weight.sourceRowBegin + range.begin;
        if (tokens < kLanePanelMinTokens && halfRowProductApplies(*weight.source, firstRow, rangeRows)) {
            if (!laneProductHalfRows(*weight.source, firstRow, rangeRows, x, tokens, y + range.begin, yStride))
                for (std::int64_t t = 0; t < tokens; ++t)
                    std::fill(y + t * yStride + range.begin, y + t * yStride + range.end, std::numeric_limits<float>::quiet_NaN());
            return;
        }
        tile.resize(static_cast<std::size_t>(range.size()) * static_cast<std::size_t>(columns));
        // The load dequantized a row of this tensor, so this cannot fail for want of a kernel.
        if (!dequantizeRows(*weight.source, weight.sourceRowBegin + range.begin, weight.sourceRowBegin + range.end, tile, WeightValues::Stored))
            std::fill(tile.begin(), tile.end(), std::numeric_limits<float>::quiet_NaN());
        laneProductRows(x, tokens, tile.data(), columns, 0, rangeRows, y + range.begin, yStride, scratch);
    });
}

// The integer product of a quantized weight (kernels/QuantizedDot.h): the activations are
// quantized once, then each range of rows multiplies its stored blocks against them on the
// pass's threads, each token with the kernel llama.cpp's CPU backend would use for it
// (planProduct). A range's blocks (about 256 KB) stay in L2 while the tokens pass over them.
void integerProduct(const float* x, std::int64_t tokens, const WeightMatrix& weight, float* y, std::int64_t yStride)
{
    const TensorInfo& tensor = *weight.source;
    const TypeTraits& type = *tensor.traits;
    thread_local Q8Activations activations;
    quantizeActivations(*q8KindOf(type.cpu.activations), x, tokens, weight.columns, activations);
    // llama.cpp keeps a weight that get_rows also reads (the token embedding, when the output
    // matrix is tied to it) in its plain layout.
    const bool repackable = std::string_view(tensor.name) != "token_embd.weight";
    const ProductPlan plan = planProduct(type, weight.productKind, tensor.ne[1], weight.columns, tokens, repackable);
    const auto rowBytes = static_cast<std::int64_t>(quantizedSize(type, static_cast<std::uint64_t>(weight.columns)));
    const std::uint8_t* first = tensor.data + weight.sourceRowBegin * static_cast<std::uint64_t>(rowBytes);
    TaskExecutor* executor = weight.executor;
    const auto threads = static_cast<std::int64_t>(executorThreads(executor));
    // About 256 KB of blocks per range, and a few ranges per thread so the threads end together.
    std::int64_t perRange = std::clamp<std::int64_t>(256 * 1024 / rowBytes, 4, 64);
    if (threads > 1)
        perRange = std::max<std::int64_t>(1, std::min(perRange, weight.rows / (4 * threads)));
    // The vector kernels lay out 32 rows (K-quants: Q4KProductAvx512.cpp, Q6KProductAvx512.cpp)
    // or 16 (Q8_0, Q4_0: LegacyProductAvx512.cpp) at a time: their ranges are whole 32-row
    // chunks, on one thread a single range.
    if (hasVectorDot(plan.first) || hasVectorDot(plan.rest))
        perRange = threads > 1 ? std::max<std::int64_t>(32, weight.rows / (4 * threads) / 32 * 32) : weight.rows;
    const auto ranges = fixedRowRanges(0, static_cast<std::uint64_t>(weight.rows), static_cast<std::uint64_t>(perRange));
    const Q8Activations& shared = activations;
    forEachRange(executor, ranges, [&](RowRange range) {
        const std::uint8_t* rows = first + range.begin * static_cast<std::uint64_t>(rowBytes);
        const auto count = static_cast<std::int64_t>(range.size());
        if (plan.split > 0)
            quantizedDotRows(plan.first, rows, rowBytes, count, shared, {0, plan.split}, y + range.begin, yStride);
        if (plan.split < tokens)
            quantizedDotRows(plan.rest, rows, rowBytes, count, shared, {plan.split, tokens - plan.split}, y + range.begin, yStride);
    });
}

}  // namespace

void multiplyWeights(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns,
                     ActivationRounding rounding, Accumulation accumulation, float* y, std::int64_t yStride, TaskExecutor* executor)
{
    if (tokens == 0 || rows == 0)
        return;
    std::vector<float> rounded;
    x = roundedActivations(x, tokens, columns, rounding, rounded);
    if (accumulation == Accumulation::Double || (accumulation == Accumulation::Lanes && columns % 8 != 0)) {
        multiplyInDouble(x, tokens, weights, rows, columns, y, yStride, executor);
        return;
    }
    if (accumulation == Accumulation::Lanes) {
        ggmlFloatLaneProduct(x, tokens, weights, rows, columns, y, yStride, executor);
        return;
    }
    // Fixed blocks of rows side by side on the pass's threads (OpenBLAS runs one thread per
    // call): the blocks, and so each output's sums, do not depend on the thread count.
    forEachRange(executor, fixedRowRanges(0, static_cast<std::uint64_t>(rows), kBlasRowsPerBlock), [&](RowRange range) {
        blas().sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(tokens), static_cast<int>(range.size()),
                     static_cast<int>(columns), 1.0f, x, static_cast<int>(columns), weights + range.begin * columns,
                     static_cast<int>(columns), 0.0f, y + range.begin, static_cast<int>(yStride));
    });
}

namespace {

// tinyBLAS's f32 and f16 kernels on AVX2 take only matrices whose row count is a multiple of 4
// (its tiles; llamafile_sgemm then declines): ggml's mul_mat falls back to the type's vec_dot
// for each output (step35's attn_gate of 6 heads).
void vecDotProduct(const float* x, std::int64_t tokens, const WeightMatrix& weight, float* y, std::int64_t stride)
{
    const float* w = weight.data();
    const bool half = weight.storedType == typeIdValue(GgmlTypeId::F16);
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t r = 0; r < weight.rows; ++r) {
            const float* row = w + r * weight.columns;
            const float* in = x + t * weight.columns;
            y[t * stride + r] = half ? vecDotF16(row, in, weight.columns) : vecDotF32(row, in, weight.columns);
        }
}

// The product with the weight's stored values (without its companion scale).
void multiplyStored(const float* x, std::int64_t tokens, const WeightMatrix& weight, Accumulation accumulation, float* y, std::int64_t stride)
{
    if (weight.ggmlFloatLanes && tokens > 0 && weight.rows % 4 != 0 && !weight.tensorName.empty() && weight.slices == 1) {
        std::vector<float> rounded;
        x = roundedActivations(x, tokens, weight.columns, weight.activationRounding, rounded);
        vecDotProduct(x, tokens, weight, y, stride);
        return;
    }
    if (weight.integerProduct && tokens > 0) {
        integerProduct(x, tokens, weight, y, stride);
        return;
    }
    if (weight.deferred() && tokens > 0 && weight.columns % 8 == 0
        && (accumulation == Accumulation::Lanes || weight.ggmlFloatLanes)) {
        std::vector<float> rounded;
        deferredLaneProduct(roundedActivations(x, tokens, weight.columns, weight.activationRounding, rounded), tokens, weight, y, stride);
        return;
    }
    if (weight.ggmlFloatLanes && tokens > 0) {
        std::vector<float> rounded;
        x = roundedActivations(x, tokens, weight.columns, weight.activationRounding, rounded);
        ggmlFloatLaneProduct(x, tokens, weight.data(), weight.rows, weight.columns, y, stride, weight.executor);
        return;
    }
    multiplyWeights(x, tokens, weight.data(), weight.rows, weight.columns, weight.activationRounding, accumulation, y, stride, weight.executor);
}

}  // namespace

void multiplyWeights(const float* x, std::int64_t tokens, const WeightMatrix& weight, Accumulation accumulation, float* y,
                     std::int64_t yStride)
{
    const std::int64_t stride = yStride > 0 ? yStride : weight.rows;
    multiplyStored(x, tokens, weight, accumulation, y, stride);
    applyOutputScale(weight, tokens, y, stride);
}

void applyOutputScale(const WeightMatrix& weight, std::int64_t tokens, float* y, std::int64_t yStride)
{
    if (weight.outputScale == 1.0f)
        return;
    const std::int64_t stride = yStride > 0 ? yStride : weight.rows;
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t r = 0; r < weight.rows; ++r)
            y[t * stride + r] = y[t * stride + r] * weight.outputScale;  // ggml_mul(product, scale)
}

}  // namespace gguf
