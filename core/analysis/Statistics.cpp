#include "core/analysis/Statistics.h"

#include "core/analysis/FusedStatistics.h"

#include "core/gguf/Dequantize.h"

#include <algorithm>
#include <cmath>

namespace gguf {

namespace {
constexpr std::uint64_t kChunkElements = 1 << 20;
}

void StatisticsAccumulator::add(std::span<const float> values)
{
    Statistics& s = m_partial;
    s.count += values.size();
    for (const float value : values) {
        if (std::isnan(value)) {
            ++s.nanCount;
            continue;
        }
        if (std::isinf(value)) {
            ++s.infCount;
            continue;
        }
        const double v = value;
        if (s.finiteCount == 0) {
            s.min = v;
            s.max = v;
        } else {
            s.min = std::min(s.min, v);
            s.max = std::max(s.max, v);
        }
        ++s.finiteCount;
        s.zeroCount += value == 0.0f;
        m_sum += v;
        m_sumOfSquares += v * v;
    }
}

Statistics StatisticsAccumulator::result() const
{
    Statistics s = m_partial;
    if (s.finiteCount > 0) {
        const auto n = static_cast<double>(s.finiteCount);
        s.mean = m_sum / n;
        s.rms = std::sqrt(m_sumOfSquares / n);
        s.stddev = std::sqrt(std::max(0.0, m_sumOfSquares / n - s.mean * s.mean));
    }
    return s;
}

Histogram::Histogram(double lower, double upper, std::uint32_t binCount)
    : m_lower(lower), m_upper(upper), m_counts(std::max<std::uint32_t>(binCount, 1), 0)
{
    const double width = upper - lower;
    m_scale = width > 0.0 ? static_cast<double>(m_counts.size()) / width : 0.0;
}

double Histogram::binLower(std::uint32_t bin) const
{
    return m_lower + (m_upper - m_lower) * bin / static_cast<double>(m_counts.size());
}

void Histogram::add(std::span<const float> values)
{
    const auto lastBin = m_counts.size() - 1;
    for (const float value : values) {
        if (!std::isfinite(value))
            continue;
        const double v = value;
        if (v < m_lower) {
            ++m_below;
        } else if (v > m_upper) {
            ++m_above;
        } else {
            const auto bin = static_cast<std::size_t>((v - m_lower) * m_scale);
            ++m_counts[std::min(bin, lastBin)];
        }
    }
}

Result<SliceStatistics> computeStatistics(const TensorSlice& slice, std::uint32_t binCount, const std::atomic<bool>* cancelled)
{
    auto stopped = [cancelled]() { return cancelled && cancelled->load(std::memory_order_relaxed); };
    // The first pass is the fused one: the same figures, bit for bit, as StatisticsAccumulator
    // over the same chunks, without sending the dequantized values through memory.
    Result<Statistics> fused = fusedStatistics(slice, cancelled);
    if (!fused)
        return fused.error();
    const Statistics statistics = *fused;
    const bool hasRange = statistics.finiteCount > 0;
    Histogram histogram(hasRange ? statistics.min : 0.0, hasRange ? statistics.max : 0.0, binCount);
    if (hasRange) {
        if (Status s = forEachChunk(slice, kChunkElements, [&](std::span<const float> values, std::uint64_t) {
                histogram.add(values);
                return !stopped();
            }); !s)
            return s.error();
        if (stopped())
            return Error{"statistics cancelled", Error::kNoOffset, {}};
    }
    return SliceStatistics{statistics, histogram};
}

}  // namespace gguf
