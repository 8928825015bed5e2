#include "compare/ErrorLanes.h"

#include "kernels/KernelIsa.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace gguf {

namespace {

double foldTree(const double (&lane)[kErrorSumLanes])
{
    static_assert(kErrorSumLanes == 8, "the fold below is written for eight lanes");
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace

ErrorSums ErrorLaneSums::folded() const
{
    ErrorSums s;
    s.count = count;
    s.nonFiniteCount = nonFiniteCount;
    s.sumSquaredError = foldTree(squaredError);
    s.sumAbsError = foldTree(absError);
    s.maxAbsError = *std::max_element(std::begin(maxAbsError), std::end(maxAbsError));
    s.sumReferenceSquared = foldTree(referenceSquared);
    s.sumOtherSquared = foldTree(otherSquared);
    s.sumProduct = foldTree(product);
    return s;
}

// ---- ErrorBinCounts ---------------------------------------------------------------------------

void ErrorBinCounts::touched(std::uint32_t lowest, std::uint32_t highest)
{
    m_lowest = std::min(m_lowest, lowest);
    m_highest = std::max(m_highest, highest);
}

void ErrorBinCounts::foldInto(AbsErrorHistogram& histogram)
{
    const auto reset = [&] {
        for (std::uint32_t t = 0; t < kTables; ++t) {
            std::uint32_t* counts = m_counts.data() + std::size_t{t} * kSlots;
            if (m_lowest <= m_highest)
                std::fill(counts + m_lowest, counts + m_highest + 1, 0u);
            counts[kZeroSlot] = 0;
            counts[kNonFiniteSlot] = 0;
        }
        m_lowest = kSlots;
        m_highest = 0;
        m_pending = 0;
    };
    try {
        for (std::uint32_t t = 0; t < kTables; ++t) {
            std::uint32_t* counts = m_counts.data() + std::size_t{t} * kSlots;
            histogram.addZeros(counts[kZeroSlot]);
            counts[kZeroSlot] = 0;
            if (m_lowest <= m_highest)
                histogram.addBinCounts(m_lowest, std::span<std::uint32_t>(counts + m_lowest, m_highest - m_lowest + 1));
        }
    } catch (...) {
        reset();  // the table is this thread's scratch: leave it clean for the next caller
        throw;
    }
    reset();
}

ErrorBinCounts& ErrorBinCounts::scratch()
{
    thread_local ErrorBinCounts counts;
    return counts;
}

// ---- the kernels ------------------------------------------------------------------------------

void addErrorLanesScalar(ErrorLaneSums& lanes, const float* reference, const float* other, std::size_t n, std::size_t firstLane,
                         ErrorBinCounts* bins)
{
    std::uint32_t* counts = bins ? bins->counts() : nullptr;
    std::uint32_t lowest = ErrorBinCounts::kZeroSlot;
    std::uint32_t highest = 0;
    std::size_t lane = firstLane;
    for (std::size_t i = 0; i < n; ++i) {
        const bool finite = std::isfinite(reference[i]) && std::isfinite(other[i]);
        const double r = finite ? double(reference[i]) : 0.0;
        const double o = finite ? double(other[i]) : 0.0;
        const double error = o - r;
        const double absError = std::abs(error);
        lanes.squaredError[lane] = std::fma(error, error, lanes.squaredError[lane]);
        lanes.absError[lane] += absError;
        lanes.maxAbsError[lane] = std::max(lanes.maxAbsError[lane], absError);
        lanes.referenceSquared[lane] = std::fma(r, r, lanes.referenceSquared[lane]);
        lanes.otherSquared[lane] = std::fma(o, o, lanes.otherSquared[lane]);
        lanes.product[lane] = std::fma(r, o, lanes.product[lane]);
        lanes.count += finite;
        lanes.nonFiniteCount += !finite;
        if (counts) {
            std::uint32_t slot = ErrorBinCounts::kNonFiniteSlot;
            if (finite && absError == 0.0) {
                slot = ErrorBinCounts::kZeroSlot;
            } else if (finite) {
                // At most FLT_MAX: a finite difference of two floats can reach 2 * FLT_MAX.
                const float rounded = static_cast<float>(std::min(absError, double(std::numeric_limits<float>::max())));
                slot = std::bit_cast<std::uint32_t>(rounded) >> 16;
                lowest = std::min(lowest, slot);
                highest = std::max(highest, slot);
            }
            ++counts[slot];
        }
        lane = lane + 1 == kErrorSumLanes ? 0 : lane + 1;
    }
    if (bins) {
        bins->counted(n);
        if (lowest <= highest)
            bins->touched(lowest, highest);
    }
}

void addErrorLanes(ErrorLaneSums& lanes, const float* reference, const float* other, std::size_t n, std::size_t firstLane,
                   ErrorBinCounts* bins)
{
    static const bool useAvx2 = preferredKernelIsa() == KernelIsa::Avx2;
    if (useAvx2 && addErrorLanesAvx2(lanes, reference, other, n, firstLane, bins))
        return;
    addErrorLanesScalar(lanes, reference, other, n, firstLane, bins);
}

}  // namespace gguf
