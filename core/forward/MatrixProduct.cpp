#include "core/forward/MatrixProduct.h"

#include "core/forward/WeightLoader.h"

#include "core/base/BlasLibrary.h"
#include "core/base/RowRanges.h"
#include "core/kernels/Dequantize.h"
#include "core/kernels/HalfRowProduct.h"
#include "core/kernels/LanePanel.h"
#include "core/kernels/LaneProduct.h"
#include "core/kernels/QuantizedDot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace gguf {

namespace {

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

// ggml-cpu's q8_0-activation products on x86 (tinyBLAS_Q0_AVX and ggml_vec_dot_q*_q8_0): per
// output, 8 float lanes; for each 32-block, lane l gets fma(dA * dW, the integer dot of values
// 4l..4l+3, lane); then the lanes are summed ((0+4)+(2+6))+((1+5)+(3+7)). With x and w the
// dequantized values, the 4-value dot in double is exactly dA * dW * that integer dot, and
// adding it to the lane in double then rounding is the fma.
void ggmlBlockLaneProduct(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns, float* y,
                          std::int64_t yStride, TaskExecutor* executor)
{
    const std::int64_t blocks = columns / 32;
    forEachRange(executor, planRowRanges(0, static_cast<std::uint64_t>(rows), executorThreads(executor)), [&](RowRange range) {
        for (auto r = static_cast<std::int64_t>(range.begin); r < static_cast<std::int64_t>(range.end); ++r) {
            const float* w = weights + r * columns;
            for (std::int64_t t = 0; t < tokens; ++t) {
                const float* a = x + t * columns;
                float lanes[8] = {};
                for (std::int64_t b = 0; b < blocks; ++b)
                    for (int l = 0; l < 8; ++l) {
                        const std::int64_t i = b * 32 + l * 4;
                        const double dot = static_cast<double>(a[i]) * w[i] + static_cast<double>(a[i + 1]) * w[i + 1]
                                         + static_cast<double>(a[i + 2]) * w[i + 2] + static_cast<double>(a[i + 3]) * w[i + 3];
                        lanes[l] = static_cast<float>(static_cast<double>(lanes[l]) + dot);
                    }
                y[t * yStride + r] = ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
            }
        }
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
        if (!dequantizeRows(*weight.source, weight.sourceRowBegin + range.begin, weight.sourceRowBegin + range.end, tile))
            std::fill(tile.begin(), tile.end(), std::numeric_limits<float>::quiet_NaN());
        laneProductRows(x, tokens, tile.data(), columns, 0, rangeRows, y + range.begin, yStride, scratch);
    });
}

// The integer product of a deferred quantized weight (kernels/QuantizedDot.h): the activations
// are quantized once, then each range of rows multiplies its stored blocks against them on the
// pass's threads. A range's blocks (about 256 KB) stay in L2 while the tokens pass over them.
void integerProduct(const float* x, std::int64_t tokens, const WeightMatrix& weight, float* y, std::int64_t yStride)
{
    const QuantizedWeight type = *quantizedWeightOfType(weight.storedType, weight.source->ne[1] % 8 == 0);
    thread_local Q8Activations activations;
    quantizeActivations(activationKindOf(type), x, tokens, weight.columns, activations);
    const std::int64_t rowBytes = bytesPerRow(type, weight.columns);
    const std::uint8_t* first = weight.source->data + weight.sourceRowBegin * static_cast<std::uint64_t>(rowBytes);
    TaskExecutor* executor = weight.executor;
    const auto threads = static_cast<std::int64_t>(executorThreads(executor));
    // About 256 KB of blocks per range, and a few ranges per thread so the threads end together.
    std::int64_t perRange = std::clamp<std::int64_t>(256 * 1024 / rowBytes, 4, 64);
    if (threads > 1)
        perRange = std::max<std::int64_t>(1, std::min(perRange, weight.rows / (4 * threads)));
    // The 512-bit kernels lay out 32 rows (K-quants: Q4KProductAvx512.cpp, Q6KProductAvx512.cpp)
    // or 16 (Q8_0, Q4_0: LegacyProductAvx512.cpp) at a time: their ranges are whole 32-row
    // chunks, on one thread a single range.
    if (type == QuantizedWeight::Q4_K_8x8 || type == QuantizedWeight::Q6_K || type == QuantizedWeight::Q8_0
        || type == QuantizedWeight::Q4_0)
        perRange = threads > 1 ? std::max<std::int64_t>(32, weight.rows / (4 * threads) / 32 * 32) : weight.rows;
    const auto ranges = fixedRowRanges(0, static_cast<std::uint64_t>(weight.rows), static_cast<std::uint64_t>(perRange));
    const Q8Activations& shared = activations;
    forEachRange(executor, ranges, [&](RowRange range) {
        quantizedDotRows(type, first + range.begin * static_cast<std::uint64_t>(rowBytes), static_cast<std::int64_t>(range.size()), shared,
                         y + range.begin, yStride);
    });
}

}  // namespace

void multiplyWeights(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns,
                     ActivationRounding rounding, Accumulation accumulation, float* y, std::int64_t yStride, TaskExecutor* executor)
{
    if (tokens == 0 || rows == 0)
        return;
    std::vector<float> rounded;
    if (rounding != ActivationRounding::None) {
        rounded.assign(x, x + tokens * columns);
        roundActivations(rounding, rounded, columns);
        x = rounded.data();
    }
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

void multiplyWeights(const float* x, std::int64_t tokens, const WeightMatrix& weight, Accumulation accumulation, float* y,
                     std::int64_t yStride)
{
    const std::int64_t stride = yStride > 0 ? yStride : weight.rows;
    if (weight.integerProduct && weight.deferred() && tokens > 0) {
        integerProduct(x, tokens, weight, y, stride);
        return;
    }
    if (weight.deferred() && tokens > 0 && !weight.ggmlBlockLanes && weight.columns % 8 == 0
        && (accumulation == Accumulation::Lanes || weight.ggmlFloatLanes)) {
        const float* input = x;
        std::vector<float> rounded;
        if (weight.activationRounding != ActivationRounding::None) {
            rounded.assign(x, x + tokens * weight.columns);
            roundActivations(weight.activationRounding, rounded, weight.columns);
            input = rounded.data();
        }
        deferredLaneProduct(input, tokens, weight, y, stride);
        addBlockMinimumTerm(x, tokens, weight, y, stride);
        return;
    }
    if (weight.ggmlFloatLanes && tokens > 0) {
        std::vector<float> rounded;
        if (weight.activationRounding != ActivationRounding::None) {
            rounded.assign(x, x + tokens * weight.columns);
            roundActivations(weight.activationRounding, rounded, weight.columns);
            x = rounded.data();
        }
        ggmlFloatLaneProduct(x, tokens, weight.data(), weight.rows, weight.columns, y, stride, weight.executor);
        return;
    }
    if (weight.ggmlBlockLanes && tokens > 0) {
        std::vector<float> rounded(x, x + tokens * weight.columns);
        roundActivations(weight.activationRounding, rounded, weight.columns);
        ggmlBlockLaneProduct(rounded.data(), tokens, weight.data(), weight.rows, weight.columns, y, stride, weight.executor);
        return;
    }
    multiplyWeights(x, tokens, weight.data(), weight.rows, weight.columns, weight.activationRounding, accumulation, y, stride, weight.executor);
    addBlockMinimumTerm(x, tokens, weight, y, stride);
}

void addBlockMinimumTerm(const float* x, std::int64_t tokens, const WeightMatrix& weight, float* y, std::int64_t stride)
{
    const std::int64_t blocks = weight.columns / 32;
    if (weight.blockMins.size() != static_cast<std::size_t>(weight.rows * blocks) || blocks == 0 || tokens == 0)
        return;
    // y += errors x mins^T: the q8_1 `s` of each activation block against its exact sum.
    std::vector<float> errors(static_cast<std::size_t>(tokens * blocks));
    q8_1SumErrors({x, static_cast<std::size_t>(tokens * weight.columns)}, weight.columns, errors);
    std::vector<float> correction(static_cast<std::size_t>(tokens * weight.rows));
    multiplyInDouble(errors.data(), tokens, weight.blockMins.data(), weight.rows, blocks, correction.data(), weight.rows, weight.executor);
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t r = 0; r < weight.rows; ++r)
            y[t * stride + r] += correction[static_cast<std::size_t>(t * weight.rows + r)];
}

}  // namespace gguf
