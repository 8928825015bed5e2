#pragma once
// The kernels that fill the fixed summation grid of the plain error sums (ErrorMetrics.h).
//
// Element i of an accumulator's stream belongs to block i / kErrorSumBlock and, inside its
// block, to lane i % kErrorSumLanes. Each lane sums its elements in element order (in double);
// a complete block folds its lanes in a fixed tree into one ErrorSums, and blocks are added to
// the total in block order. Every figure is therefore a function of the values alone: not of how
// a stream is cut into add() calls, ranges or threads, nor of the instruction set (the AVX2 and
// scalar kernels do the same double operations per lane, products of two values by fused
// multiply-add). Sums of at most 512 terms per lane, then a tree, then one add per 4096 values,
// round less than one running sum over the whole tensor did.
//
// The |error| histogram bins are counted in the same pass into a flat table (ErrorBinCounts),
// which a caller folds into an AbsErrorHistogram when it is done.

#include "core/compare/ErrorMetrics.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gguf {

// Per |error| bin a count, flat, so the kernels count with one increment. A pair's slot is the
// bits of |error| rounded to float, >> 16: AbsErrorHistogram's bin, except that slot 0 also
// takes exact zeros and non-finite pairs (the kernels report how many, and a fold takes them
// out) and slot kInfinitySlot takes the differences beyond FLT_MAX (folded into the last bin).
// kTables tables of kSlots counts each, which a kernel may use in any mix; a fold adds them
// all. Holds fewer than 2^32 counts between two folds.
class ErrorBinCounts {
public:
    static constexpr std::uint32_t kSlots = 0x8000;
    static constexpr std::uint32_t kTables = 4;
    static constexpr std::uint32_t kLastBin = 0x7F7F;      // FLT_MAX's bits >> 16
    static constexpr std::uint32_t kInfinitySlot = 0x7F80;  // +inf's bits >> 16
    static constexpr std::uint64_t kMaxCountsBeforeFold = std::uint64_t{1} << 31;

    ErrorBinCounts() : m_counts(std::size_t{kSlots} * kTables, 0) {}
    std::uint32_t* counts() { return m_counts.data(); }  // table t starts at counts() + t * kSlots
    // What a kernel call counted: `pairs` slots, of which `zeroOrNonFinite` in slot 0 without a
    // bin (`nonFinite` of them not finite), and real slots only in [lowest, highest] (lowest >= 1).
    void counted(std::uint64_t pairs, std::uint64_t zeroOrNonFinite, std::uint64_t nonFinite)
    {
        m_pending += pairs;
        m_unbinnedInSlotZero += zeroOrNonFinite;
        m_nonFinite += nonFinite;
    }
    void touched(std::uint32_t lowest, std::uint32_t highest);
    bool needsFold() const { return m_pending >= kMaxCountsBeforeFold; }
    // Adds the counts to `histogram` and clears them.
    void foldInto(AbsErrorHistogram& histogram);
    // This thread's table, for a caller that folds it before it returns.
    static ErrorBinCounts& scratch();

private:
    void clear(bool tables);  // the totals, and with `tables` every count too

    std::vector<std::uint32_t> m_counts;
    std::uint32_t m_lowest = kSlots;
    std::uint32_t m_highest = 0;
    std::uint64_t m_pending = 0;
    std::uint64_t m_unbinnedInSlotZero = 0;
    std::uint64_t m_nonFinite = 0;
};

// Adds pairs [0, n) to `lanes`, pair 0 to lane `firstLane` (< kErrorSumLanes), pair k to lane
// (firstLane + k) % kErrorSumLanes; with `bins`, also counts each pair's |error| bin. Uses the
// best instruction set the CPU runs (KernelIsa.h; GGUFX_KERNELS=scalar selects the scalar one).
void addErrorLanes(ErrorLaneSums& lanes, const float* reference, const float* other, std::size_t n, std::size_t firstLane,
                   ErrorBinCounts* bins);
// The two kernels, for the tests that compare them.
void addErrorLanesScalar(ErrorLaneSums& lanes, const float* reference, const float* other, std::size_t n, std::size_t firstLane,
                         ErrorBinCounts* bins);
// False when this build or CPU has no AVX2 + FMA kernel (then nothing is added).
bool addErrorLanesAvx2(ErrorLaneSums& lanes, const float* reference, const float* other, std::size_t n, std::size_t firstLane,
                       ErrorBinCounts* bins);

}  // namespace gguf
