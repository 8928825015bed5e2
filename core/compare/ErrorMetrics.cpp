#include "compare/ErrorMetrics.h"

#include "compare/ImportanceErrorMetrics.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gguf {

// ---- AbsErrorHistogram ------------------------------------------------------------------------

void AbsErrorHistogram::add(double absError)
{
    ++m_count;
    if (absError == 0.0) {
        ++m_zeroCount;
        return;
    }
    // Round to float (at most FLT_MAX: a finite difference of two floats can reach 2 * FLT_MAX);
    // bits 30..23 are the exponent, 22..16 the top mantissa bits.
    const float rounded = static_cast<float>(std::min(absError, double(std::numeric_limits<float>::max())));
    const std::uint32_t bin = std::bit_cast<std::uint32_t>(rounded) >> 16;
    std::vector<std::uint64_t>& octave = m_octaves[bin / kSubBins];
    if (octave.empty())
        octave.assign(kSubBins, 0);
    ++octave[bin % kSubBins];
}

void AbsErrorHistogram::merge(const AbsErrorHistogram& other)
{
    m_count += other.m_count;
    m_zeroCount += other.m_zeroCount;
    for (int o = 0; o < kOctaves; ++o) {
        const std::vector<std::uint64_t>& source = other.m_octaves[static_cast<std::size_t>(o)];
        if (source.empty())
            continue;
        std::vector<std::uint64_t>& target = m_octaves[static_cast<std::size_t>(o)];
        if (target.empty())
            target.assign(kSubBins, 0);
        for (int b = 0; b < kSubBins; ++b)
            target[static_cast<std::size_t>(b)] += source[static_cast<std::size_t>(b)];
    }
}

// The k-th smallest |error| (0-based), estimated inside its bin.
double AbsErrorHistogram::orderStatistic(std::uint64_t k) const
{
    if (k < m_zeroCount)
        return 0.0;
    std::uint64_t before = m_zeroCount;
    for (int o = 0; o < kOctaves; ++o) {
        const std::vector<std::uint64_t>& octave = m_octaves[static_cast<std::size_t>(o)];
        if (octave.empty())
            continue;
        for (int b = 0; b < kSubBins; ++b) {
            const std::uint64_t inBin = octave[static_cast<std::size_t>(b)];
            if (k >= before + inBin) {
                before += inBin;
                continue;
            }
            const std::uint32_t bin = static_cast<std::uint32_t>(o * kSubBins + b);
            const double lower = std::bit_cast<float>(bin << 16);
            const double upper = std::min(double(std::bit_cast<float>((bin + 1) << 16)), double(std::numeric_limits<float>::max()));
            const double position = (double(k - before) + 0.5) / double(inBin);
            return lower + position * (upper - lower);
        }
    }
    return std::numeric_limits<double>::quiet_NaN();  // k >= count: not reached by quantile()
}

double AbsErrorHistogram::quantile(double q) const
{
    if (m_count == 0 || !(q >= 0.0 && q <= 1.0))
        return std::numeric_limits<double>::quiet_NaN();
    const double rank = q * double(m_count - 1);
    const auto k = static_cast<std::uint64_t>(rank);
    const double fraction = rank - double(k);
    const double low = orderStatistic(k);
    if (fraction == 0.0 || k + 1 >= m_count)
        return low;
    return low + fraction * (orderStatistic(k + 1) - low);
}

// ---- ErrorSums / ErrorAccumulator -------------------------------------------------------------

void ErrorSums::merge(const ErrorSums& later)
{
    count += later.count;
    nonFiniteCount += later.nonFiniteCount;
    sumSquaredError += later.sumSquaredError;
    sumAbsError += later.sumAbsError;
    maxAbsError = std::max(maxAbsError, later.maxAbsError);
    sumReferenceSquared += later.sumReferenceSquared;
    sumOtherSquared += later.sumOtherSquared;
    sumProduct += later.sumProduct;
    weightedCount += later.weightedCount;
    sumWeightedSquaredError += later.sumWeightedSquaredError;
    sumWeightedReferenceSquared += later.sumWeightedReferenceSquared;
}

void ErrorAccumulator::add(std::span<const float> reference, std::span<const float> other)
{
    const std::size_t n = std::min(reference.size(), other.size());
    ErrorSums& s = m_sums;
    for (std::size_t i = 0; i < n; ++i) {
        double absError = 0.0;
        if (s.addPair(reference[i], other[i], absError))
            m_histogram.add(absError);
    }
}

void ErrorAccumulator::merge(const ErrorAccumulator& later)
{
    m_sums.merge(later.m_sums);
    m_histogram.merge(later.m_histogram);
}

ErrorMetrics ErrorAccumulator::result() const
{
    return metricsFrom(m_sums, m_histogram);
}

ErrorMetrics ErrorAccumulator::metricsFrom(const ErrorSums& s, const AbsErrorHistogram& histogram)
{
    ErrorMetrics m;
    m.sums = s;
    m.count = s.count;
    m.nonFiniteCount = s.nonFiniteCount;
    if (s.count == 0)
        return m;
    const double n = double(s.count);
    const double inf = std::numeric_limits<double>::infinity();
    m.rmse = std::sqrt(s.sumSquaredError / n);
    m.maxAbsError = s.maxAbsError;
    m.meanAbsError = s.sumAbsError / n;
    m.referenceRms = std::sqrt(s.sumReferenceSquared / n);
    if (s.sumSquaredError == 0.0) {
        m.relativeRmse = 0.0;
        m.sqnrDb = inf;
    } else {
        m.relativeRmse = s.sumReferenceSquared > 0.0 ? std::sqrt(s.sumSquaredError / s.sumReferenceSquared) : inf;
        m.sqnrDb = s.sumReferenceSquared > 0.0 ? 10.0 * std::log10(s.sumReferenceSquared / s.sumSquaredError) : -inf;
    }
    if (s.sumReferenceSquared == 0.0 || s.sumOtherSquared == 0.0)
        m.cosineSimilarity = (s.sumReferenceSquared == 0.0 && s.sumOtherSquared == 0.0) ? 1.0 : 0.0;
    else
        m.cosineSimilarity = s.sumProduct / (std::sqrt(s.sumReferenceSquared) * std::sqrt(s.sumOtherSquared));
    m.p50AbsError = histogram.quantile(0.50);
    m.p95AbsError = histogram.quantile(0.95);
    m.p99AbsError = histogram.quantile(0.99);
    setWeightedMetrics(m, s);
    return m;
}

}  // namespace gguf
