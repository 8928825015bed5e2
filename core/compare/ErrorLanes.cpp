#include "core/compare/ErrorLanes.h"

#include "core/kernels/KernelIsa.h"

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

void ErrorBinCounts::clear(bool tables)
{
    for (std::uint32_t t = 0; t < kTables && tables; ++t) {
        std::uint32_t* counts = m_counts.data() + std::size_t{t} * kSlots;
        counts[0] = 0;
        counts[kInfinitySlot] = 0;
        if (m_lowest <= m_highest)
            std::fill(counts + m_lowest, counts + m_highest + 1, 0u);
    }
    m_lowest = kSlots;
    m_highest = 0;
    m_pending = 0;
    m_unbinnedInSlotZero = 0;
    m_nonFinite = 0;
}

void ErrorBinCounts::foldInto(AbsErrorHistogram& histogram)
{
    try {
        std::uint64_t slotZero = 0;
        std::uint64_t beyondFloatMax = 0;
        for (std::uint32_t t = 0; t < kTables; ++t) {
            std::uint32_t* counts = m_counts.data() + std::size_t{t} * kSlots;
            slotZero += counts[0];
            beyondFloatMax += counts[kInfinitySlot];
            counts[0] = 0;
            counts[kInfinitySlot] = 0;
        }
        histogram.addZeros(m_unbinnedInSlotZero - m_nonFinite);
        // Slot 0 without the zeros and non-finite pairs: values below 2^-133, the first bin.
        std::uint32_t firstBin[1] = {static_cast<std::uint32_t>(slotZero - m_unbinnedInSlotZero)};
        histogram.addBinCounts(0, firstBin);
        std::uint32_t lastBin[1] = {static_cast<std::uint32_t>(beyondFloatMax)};
        histogram.addBinCounts(kLastBin, lastBin);
        const std::uint32_t highest = std::min(m_highest, kLastBin);
        if (m_lowest <= highest) {
            // The tables into the first (fewer than 2^32 counts in all), then that one.
            std::uint32_t* first = m_counts.data() + m_lowest;
            for (std::uint32_t t = 1; t < kTables; ++t) {
                std::uint32_t* counts = m_counts.data() + std::size_t{t} * kSlots + m_lowest;
                for (std::uint32_t k = 0; k <= highest - m_lowest; ++k) {
                    first[k] += counts[k];
                    counts[k] = 0;
                }
            }
            histogram.addBinCounts(m_lowest, std::span<std::uint32_t>(first, highest - m_lowest + 1));
        }
    } catch (...) {
        clear(true);  // the table is this thread's scratch: leave it clean for the next caller
        throw;
    }
    clear(false);  // addBinCounts set every count it took to 0
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
    std::uint32_t lowest = ErrorBinCounts::kSlots;
    std::uint32_t highest = 0;
    std::uint64_t unbinned = 0;
    std::uint64_t nonFinite = 0;
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
        nonFinite += !finite;
        if (counts) {
            // A finite difference of two floats is 0 or at least 2^-149, so it is 0 as a float
            // only when it is 0; beyond FLT_MAX it rounds to infinity (kInfinitySlot).
            const std::uint32_t slot = std::bit_cast<std::uint32_t>(static_cast<float>(absError)) >> 16;
            unbinned += absError == 0.0;
            if (absError != 0.0) {
                lowest = std::min(lowest, std::max(slot, 1u));
                highest = std::max(highest, slot);
            }
            ++counts[slot];
        }
        lane = lane + 1 == kErrorSumLanes ? 0 : lane + 1;
    }
    if (bins) {
        bins->counted(n, unbinned, nonFinite);
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
