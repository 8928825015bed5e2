#include "core/analysis/FusedStatistics.h"

#include "core/gguf/Dequantize.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace gguf {

namespace {
// Small enough to stay in L1 between dequantizing and reducing (16 KiB of floats).
constexpr std::uint64_t kChunkElements = 4096;
}  // namespace

void FusedStatisticsAccumulator::add(std::span<const float> values)
{
    constexpr std::uint32_t kExponent = 0x7F800000u;
    constexpr std::uint32_t kMantissa = 0x007FFFFFu;
    std::uint64_t finite = 0;
    std::uint64_t zeros = 0;
    std::uint64_t nans = 0;
    double sum = m_sum;
    double squares = m_sumOfSquares;
    float low = m_min;
    float high = m_max;
    for (const float value : values) {
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
        const bool isFinite = (bits & kExponent) != kExponent;
        nans += !isFinite && (bits & kMantissa) != 0;
        finite += isFinite;
        zeros += value == 0.0f;
        // A non-finite value adds +0.0, which leaves the sums exactly as skipping it would: they
        // start at +0.0 and a sum of finite doubles never becomes -0.0.
        const double v = isFinite ? double(value) : 0.0;
        sum += v;
        squares += v * v;
        // Strict comparisons keep the first of equal values, as std::min / std::max do, so a
        // zero extreme keeps the sign of the first zero seen.
        low = isFinite && value < low ? value : low;
        high = isFinite && high < value ? value : high;
    }
    m_counts.count += values.size();
    m_counts.finiteCount += finite;
    m_counts.zeroCount += zeros;
    m_counts.nanCount += nans;
    m_counts.infCount += values.size() - finite - nans;
    m_sum = sum;
    m_sumOfSquares = squares;
    m_min = low;
    m_max = high;
}

// The same formulas as StatisticsAccumulator::result().
Statistics FusedStatisticsAccumulator::result() const
{
    Statistics s = m_counts;
    if (s.finiteCount > 0) {
        const auto n = static_cast<double>(s.finiteCount);
        s.min = m_min;
        s.max = m_max;
        s.mean = m_sum / n;
        s.rms = std::sqrt(m_sumOfSquares / n);
        s.stddev = std::sqrt(std::max(0.0, m_sumOfSquares / n - s.mean * s.mean));
    }
    return s;
}

Result<Statistics> fusedStatistics(const TensorSlice& slice, const std::atomic<bool>* cancelled)
{
    FusedStatisticsAccumulator accumulator;
    bool stopped = false;
    const Status status = forEachChunk(slice, kChunkElements, [&](std::span<const float> values, std::uint64_t) {
        accumulator.add(values);
        stopped = cancelled && cancelled->load(std::memory_order_relaxed);
        return !stopped;
    });
    if (!status)
        return status.error();
    if (stopped)
        return Error{"statistics cancelled", Error::kNoOffset, {}};
    return accumulator.result();
}

}  // namespace gguf
