#include "core/compare/ErrorMetrics.h"

#include "core/compare/ErrorLanes.h"
#include "core/compare/ImportanceErrorMetrics.h"

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

void AbsErrorHistogram::addZeros(std::uint64_t zeros)
{
    m_count += zeros;
    m_zeroCount += zeros;
}

void AbsErrorHistogram::addBinCounts(std::uint32_t firstBin, std::span<std::uint32_t> counts)
{
    // An octave's share at a time, in loops without branches (they vectorise).
    std::size_t i = 0;
    while (i < counts.size()) {
        const std::uint32_t bin = firstBin + static_cast<std::uint32_t>(i);
        const std::size_t length = std::min<std::size_t>(counts.size() - i, kSubBins - bin % kSubBins);
        std::uint32_t* source = counts.data() + i;
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < length; ++k)
            total += source[k];
        i += length;
        if (total == 0)
            continue;
        std::vector<std::uint64_t>& octave = m_octaves[bin / kSubBins];
        if (octave.empty())
            octave.assign(kSubBins, 0);
        std::uint64_t* target = octave.data() + bin % kSubBins;
        for (std::size_t k = 0; k < length; ++k) {
            target[k] += source[k];
            source[k] = 0;
        }
        m_count += total;
    }
}

void AbsErrorHistogram::clear()
{
    m_count = 0;
    m_zeroCount = 0;
    for (std::vector<std::uint64_t>& octave : m_octaves)
        std::fill(octave.begin(), octave.end(), 0);
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

namespace {

// The plain sums of a later block or part added to `into`; the weighted sums are added elsewhere.
void addPlainSums(ErrorSums& into, const ErrorSums& later)
{
    into.count += later.count;
    into.nonFiniteCount += later.nonFiniteCount;
    into.sumSquaredError += later.sumSquaredError;
    into.sumAbsError += later.sumAbsError;
    into.maxAbsError = std::max(into.maxAbsError, later.maxAbsError);
    into.sumReferenceSquared += later.sumReferenceSquared;
    into.sumOtherSquared += later.sumOtherSquared;
    into.sumProduct += later.sumProduct;
}

}  // namespace

void ErrorAccumulator::closeBlock()
{
    addPlainSums(m_sums, m_open.folded());
    m_open = ErrorLaneSums{};
}

void ErrorAccumulator::addLanes(std::span<const float> reference, std::span<const float> other, ErrorBinCounts* bins)
{
    const std::size_t n = std::min(reference.size(), other.size());
    std::size_t done = 0;
    while (done < n) {
        const std::uint64_t inBlock = m_position % kErrorSumBlock;
        const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(n - done, kErrorSumBlock - inBlock));
        addErrorLanes(m_open, reference.data() + done, other.data() + done, length, static_cast<std::size_t>(inBlock % kErrorSumLanes), bins);
        done += length;
        m_position += length;
        if (m_position % kErrorSumBlock == 0)
            closeBlock();
        if (bins && bins->needsFold())
            bins->foldInto(m_histogram);
    }
}

void ErrorAccumulator::add(std::span<const float> reference, std::span<const float> other)
{
    ErrorBinCounts& bins = ErrorBinCounts::scratch();
    addLanes(reference, other, &bins);
    bins.foldInto(m_histogram);
}

bool ErrorAccumulator::addPrepared(const PreparedErrorRange& prepared, std::span<const float> reference, std::span<const float> other)
{
    if (prepared.m_position != m_position || prepared.m_size != reference.size() || other.size() != reference.size())
        return false;
    addLanes(reference.first(prepared.m_head), other.first(prepared.m_head), nullptr);
    // The head ended on a block boundary (or there was none): the open block is empty here.
    for (const ErrorSums& block : prepared.m_blocks)
        addPlainSums(m_sums, block);
    m_position += prepared.m_blocks.size() * kErrorSumBlock;
    addLanes(reference.subspan(prepared.m_tailBegin), other.subspan(prepared.m_tailBegin), nullptr);
    m_histogram.merge(prepared.m_histogram);
    return true;
}

ErrorSums ErrorAccumulator::sums() const
{
    ErrorSums s = m_sums;
    if (m_position % kErrorSumBlock != 0)
        addPlainSums(s, m_open.folded());
    return s;
}

void ErrorAccumulator::merge(const ErrorAccumulator& later)
{
    m_sums = sums();
    m_sums.merge(later.sums());
    m_open = ErrorLaneSums{};
    m_position = 0;
    m_histogram.merge(later.m_histogram);
}

// ---- PreparedErrorRange -----------------------------------------------------------------------

void PreparedErrorRange::prepare(std::uint64_t position, std::span<const float> reference, std::span<const float> other)
{
    const std::size_t n = std::min(reference.size(), other.size());
    m_position = position;
    m_size = n;
    const std::uint64_t inBlock = position % kErrorSumBlock;
    m_head = inBlock == 0 ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(n, kErrorSumBlock - inBlock));
    const std::size_t wholeBlocks = static_cast<std::size_t>((n - m_head) / kErrorSumBlock);
    m_tailBegin = m_head + wholeBlocks * static_cast<std::size_t>(kErrorSumBlock);
    m_blocks.clear();
    m_histogram.clear();
    ErrorBinCounts& bins = ErrorBinCounts::scratch();
    ErrorLaneSums unused;  // head and tail: only their |error| bins now, their sums at the turn
    addErrorLanes(unused, reference.data(), other.data(), m_head, 0, &bins);
    for (std::size_t b = 0; b < wholeBlocks; ++b) {
        const std::size_t first = m_head + b * static_cast<std::size_t>(kErrorSumBlock);
        ErrorLaneSums lanes;
        addErrorLanes(lanes, reference.data() + first, other.data() + first, static_cast<std::size_t>(kErrorSumBlock), 0, &bins);
        m_blocks.push_back(lanes.folded());
        if (bins.needsFold())
            bins.foldInto(m_histogram);
    }
    addErrorLanes(unused, reference.data() + m_tailBegin, other.data() + m_tailBegin, n - m_tailBegin, 0, &bins);
    bins.foldInto(m_histogram);
}

ErrorMetrics ErrorAccumulator::result() const
{
    return metricsFrom(sums(), m_histogram);
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
