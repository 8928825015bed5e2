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

#include "compare/ErrorMetrics.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gguf {

// Per |error| bin (AbsErrorHistogram's: the float's bits >> 16) a count, flat, so the kernels
// count with one increment. Two spare slots past the last real bin take exact zeros and
// non-finite pairs. kTables tables of kSlots counts each, which a kernel may use in any mix;
// a fold adds them all. Holds fewer than 2^32 counts between two folds.
class ErrorBinCounts {
public:
    static constexpr std::uint32_t kSlots = 0x8000;
    static constexpr std::uint32_t kTables = 4;
    static constexpr std::uint32_t kZeroSlot = 0x7FFF;
    static constexpr std::uint32_t kNonFiniteSlot = 0x7FFE;
    static constexpr std::uint64_t kMaxCountsBeforeFold = std::uint64_t{1} << 31;

    ErrorBinCounts() : m_counts(std::size_t{kSlots} * kTables, 0) {}
    std::uint32_t* counts() { return m_counts.data(); }  // table t starts at counts() + t * kSlots
    // The kernels report the lowest and highest real bin they touched, so a fold scans only those.
    void touched(std::uint32_t lowest, std::uint32_t highest);
    void counted(std::uint64_t values) { m_pending += values; }
    bool needsFold() const { return m_pending >= kMaxCountsBeforeFold; }
    // Adds the counts to `histogram` and clears them.
    void foldInto(AbsErrorHistogram& histogram);
    // This thread's table, for a caller that folds it before it returns.
    static ErrorBinCounts& scratch();

private:
    std::vector<std::uint32_t> m_counts;
    std::uint32_t m_lowest = kSlots;
    std::uint32_t m_highest = 0;
    std::uint64_t m_pending = 0;
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
