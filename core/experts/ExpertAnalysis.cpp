#include "core/experts/ExpertAnalysis.h"

#include "core/gguf/Dequantize.h"
#include "core/gguf/TensorSlice.h"

#include <algorithm>
#include <cmath>

namespace gguf {

namespace {
constexpr std::uint64_t kChunkElements = 1 << 20;

bool stopped(const std::atomic<bool>* cancelled)
{
    return cancelled && cancelled->load(std::memory_order_relaxed);
}

Error cancelledError()
{
    return Error{"expert analysis cancelled", Error::kNoOffset, {}};
}

// The similarity matrix is experts x experts doubles: a hostile ne[2] must not size it.
Error tooManyExperts(const TensorInfo& tensor)
{
    return Error{"tensor '" + std::string(tensor.name) + "' has " + std::to_string(tensor.ne[2]) + " experts; similarity is limited to "
                     + std::to_string(kMaxSimilarityExperts),
                 tensor.infoOffset, {}};
}
}  // namespace

Result<ExpertStatistics> computeExpertStatistics(const TensorInfo& tensor, std::uint64_t expert, const std::atomic<bool>* cancelled)
{
    auto slice = expertSlice(tensor, expert);
    if (!slice)
        return slice.error();
    StatisticsAccumulator accumulator;
    if (Status s = forEachChunk(*slice, kChunkElements, [&](std::span<const float> values, std::uint64_t) {
            accumulator.add(values);
            return !stopped(cancelled);
        }); !s)
        return s.error();
    if (stopped(cancelled))
        return cancelledError();
    ExpertStatistics result;
    result.expert = expert;
    result.statistics = accumulator.result();
    const Statistics& s = result.statistics;
    result.maxAbs = s.finiteCount ? std::max(std::fabs(s.min), std::fabs(s.max)) : 0.0;
    result.sparsity = s.count ? static_cast<double>(s.zeroCount) / static_cast<double>(s.count) : 0.0;
    return result;
}

Status accumulateExpertDots(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<double>& dots,
                            const std::atomic<bool>* cancelled)
{
    auto first = expertSlice(tensor, 0);
    if (!first)
        return first.error();
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    const auto rowsPerExpert = static_cast<std::uint64_t>(tensor.ne[1]);
    const auto rowLength = static_cast<std::uint64_t>(tensor.ne[0]);
    if (experts > kMaxSimilarityExperts)
        return tooManyExperts(tensor);
    if (rowBegin > rowEnd || rowEnd > rowsPerExpert || dots.size() != experts * experts)
        return Error{"expert similarity request does not fit tensor '" + std::string(tensor.name) + "'", Error::kNoOffset, {}};
    if (rowLength == 0)
        return Ok{};
    // The same rows of every expert side by side, a few rows at a time.
    const std::uint64_t rowsPerChunk = std::max<std::uint64_t>(1, kChunkElements / (rowLength * experts));
    std::vector<float> rows(static_cast<std::size_t>(std::min(rowsPerChunk, std::max<std::uint64_t>(rowEnd - rowBegin, 1)) * rowLength * experts));
    for (std::uint64_t row = rowBegin; row < rowEnd; row += rowsPerChunk) {
        if (stopped(cancelled))
            return cancelledError();
        const std::uint64_t count = std::min(rowsPerChunk, rowEnd - row);
        const std::uint64_t span = count * rowLength;
        for (std::uint64_t e = 0; e < experts; ++e) {
            const std::uint64_t sourceRow = e * rowsPerExpert + row;
            if (Status s = dequantizeRows(tensor, sourceRow, sourceRow + count, std::span<float>(rows.data() + e * span, span)); !s)
                return s;
        }
        for (std::uint64_t i = 0; i < experts; ++i) {
            const float* a = rows.data() + i * span;
            for (std::uint64_t j = i; j < experts; ++j) {
                const float* b = rows.data() + j * span;
                double sum = 0.0;
                for (std::uint64_t k = 0; k < span; ++k)
                    sum += static_cast<double>(a[k]) * static_cast<double>(b[k]);
                dots[i * experts + j] += sum;
                if (j != i)
                    dots[j * experts + i] += sum;
            }
        }
    }
    return Ok{};
}

std::vector<double> cosineFromDots(const std::vector<double>& dots, std::uint64_t expertCount)
{
    std::vector<double> cosine(dots.size());
    for (std::uint64_t i = 0; i < expertCount; ++i)
        for (std::uint64_t j = 0; j < expertCount; ++j)
            cosine[i * expertCount + j] = dots[i * expertCount + j] / std::sqrt(dots[i * expertCount + i] * dots[j * expertCount + j]);
    return cosine;
}

Result<std::vector<double>> expertCosineSimilarity(const TensorInfo& tensor, const std::atomic<bool>* cancelled)
{
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    if (experts > kMaxSimilarityExperts)
        return tooManyExperts(tensor);
    std::vector<double> dots(static_cast<std::size_t>(experts * experts), 0.0);
    if (Status s = accumulateExpertDots(tensor, 0, static_cast<std::uint64_t>(tensor.ne[1]), dots, cancelled); !s)
        return s.error();
    return cosineFromDots(dots, experts);
}

Result<std::vector<double>> routerRowNorms(const TensorInfo& router)
{
    if (router.nDims != 2)
        return Error{"router '" + std::string(router.name) + "' is not a 2-D [n_embd, n_expert] tensor", router.infoOffset, {}};
    std::vector<double> norms;
    std::vector<float> row(static_cast<std::size_t>(router.ne[0]));
    for (std::uint64_t e = 0; e < static_cast<std::uint64_t>(router.ne[1]); ++e) {
        if (Status s = dequantizeRows(router, e, e + 1, row); !s)
            return s.error();
        double sum = 0.0;
        for (const float v : row)
            sum += static_cast<double>(v) * static_cast<double>(v);
        norms.push_back(std::sqrt(sum));
    }
    return norms;
}

}  // namespace gguf
