#pragma once
// Streaming statistics over dequantized values: feed chunks in storage order, read the result.
// Sums are kept in double in storage order, so mean and rms match a straightforward reference.

#include "core/base/Result.h"
#include "core/gguf/TensorSlice.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace gguf {

struct Statistics {
    std::uint64_t count = 0;   // all values, NaN and Inf included
    std::uint64_t finiteCount = 0;
    std::uint64_t zeroCount = 0;
    std::uint64_t nanCount = 0;
    std::uint64_t infCount = 0;
    double min = std::numeric_limits<double>::quiet_NaN();  // over finite values
    double max = std::numeric_limits<double>::quiet_NaN();
    double mean = std::numeric_limits<double>::quiet_NaN();  // over finite values
    double stddev = std::numeric_limits<double>::quiet_NaN();  // population standard deviation
    double rms = std::numeric_limits<double>::quiet_NaN();
};

class StatisticsAccumulator {
public:
    void add(std::span<const float> values);
    Statistics result() const;

private:
    Statistics m_partial;
    double m_sum = 0.0;
    double m_sumOfSquares = 0.0;
};

// Counts of finite values in `binCount` equal bins over [lower, upper]; values outside the range
// are counted apart, and the upper edge belongs to the last bin.
class Histogram {
public:
    Histogram(double lower, double upper, std::uint32_t binCount);
    void add(std::span<const float> values);

    double lower() const { return m_lower; }
    double upper() const { return m_upper; }
    const std::vector<std::uint64_t>& counts() const { return m_counts; }
    std::uint64_t below() const { return m_below; }
    std::uint64_t above() const { return m_above; }
    double binLower(std::uint32_t bin) const;

private:
    double m_lower;
    double m_upper;
    double m_scale;
    std::vector<std::uint64_t> m_counts;
    std::uint64_t m_below = 0;
    std::uint64_t m_above = 0;
};

struct SliceStatistics {
    Statistics statistics;
    Histogram histogram;
};

// Two streaming passes over the slice: statistics, then a histogram over [min, max] with
// `binCount` bins. Memory stays at one chunk whatever the tensor's size.
// `cancelled`, when given, is polled between chunks.
Result<SliceStatistics> computeStatistics(const TensorSlice& slice, std::uint32_t binCount, const std::atomic<bool>* cancelled = nullptr);

}  // namespace gguf
