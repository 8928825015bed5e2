#pragma once
// Statistics of a slice in one pass that dequantizes small chunks and reduces each while it is
// still in L1, so the dequantized values never travel to memory. The result is, bit for bit,
// what StatisticsAccumulator (Statistics.h) gives for the same values: the two double sums still
// add the finite values in storage order. Only the bookkeeping differs: counts and extremes are
// computed without branches, which makes the pass several times faster. The storage-order sums
// are a chain of dependent additions, so this stays one thread; callers wanting parallel figures
// must accept a different summation order.

#include "core/base/Result.h"
#include "core/analysis/Statistics.h"
#include "core/gguf/TensorSlice.h"

#include <atomic>
#include <limits>
#include <span>

namespace gguf {

class FusedStatisticsAccumulator {
public:
    void add(std::span<const float> values);
    Statistics result() const;

private:
    Statistics m_counts;  // count, finiteCount, zeroCount, nanCount, infCount
    double m_sum = 0.0;
    double m_sumOfSquares = 0.0;
    float m_min = std::numeric_limits<float>::infinity();  // over finite values
    float m_max = -std::numeric_limits<float>::infinity();
};

// `cancelled`, when given, is polled between chunks; a cancelled pass returns an error.
Result<Statistics> fusedStatistics(const TensorSlice& slice, const std::atomic<bool>* cancelled = nullptr);

}  // namespace gguf
