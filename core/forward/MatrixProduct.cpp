#include "forward/MatrixProduct.h"

#include "forward/WeightLoader.h"

#include "base/BlasLibrary.h"

#include <algorithm>
#include <vector>

namespace gguf {

namespace {

// Weight rows converted to double at a time: bounds the double copy to a few MB.
constexpr std::int64_t kDoubleRowsPerBlock = 512;

void multiplyInDouble(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns, float* y,
                      std::int64_t yStride)
{
    const std::vector<double> xd(x, x + tokens * columns);
    std::vector<double> wd;
    std::vector<double> yd;
    const auto k = static_cast<int>(columns);
    for (std::int64_t first = 0; first < rows; first += kDoubleRowsPerBlock) {
        const std::int64_t count = std::min(kDoubleRowsPerBlock, rows - first);
        wd.assign(weights + first * columns, weights + (first + count) * columns);
        yd.resize(static_cast<std::size_t>(tokens * count));
        blas().dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(tokens), static_cast<int>(count), k, 1.0, xd.data(), k,
                     wd.data(), k, 0.0, yd.data(), static_cast<int>(count));
        for (std::int64_t t = 0; t < tokens; ++t)
            for (std::int64_t r = 0; r < count; ++r)
                y[t * yStride + first + r] = static_cast<float>(yd[static_cast<std::size_t>(t * count + r)]);
    }
}

}  // namespace

void multiplyWeights(const float* x, std::int64_t tokens, const float* weights, std::int64_t rows, std::int64_t columns,
                     ActivationRounding rounding, Accumulation accumulation, float* y, std::int64_t yStride)
{
    if (tokens == 0 || rows == 0)
        return;
    std::vector<float> rounded;
    if (rounding != ActivationRounding::None) {
        rounded.assign(x, x + tokens * columns);
        roundActivations(rounding, rounded, columns);
        x = rounded.data();
    }
    if (accumulation == Accumulation::Double) {
        multiplyInDouble(x, tokens, weights, rows, columns, y, yStride);
        return;
    }
    blas().sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(tokens), static_cast<int>(rows), static_cast<int>(columns),
                 1.0f, x, static_cast<int>(columns), weights, static_cast<int>(columns), 0.0f, y, static_cast<int>(yStride));
}

void multiplyWeights(const float* x, std::int64_t tokens, const WeightMatrix& weight, Accumulation accumulation, float* y)
{
    multiplyWeights(x, tokens, weight.data(), weight.rows, weight.columns, weight.activationRounding, accumulation, y, weight.rows);
}

}  // namespace gguf
