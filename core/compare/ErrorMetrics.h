#pragma once
// Streaming error metrics between a reference and a reconstruction of the same values: feed
// chunks of pairs, read RMSE, max / mean absolute error, relative RMSE, SQNR, cosine similarity
// and percentiles of |error|. Memory does not grow with the number of values. Accumulators merge,
// so work split over threads by element ranges combines into one result.

#include "core/base/JsonWriter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace gguf {

// Sums in double. An ErrorAccumulator adds the plain ones on a fixed grid of blocks and lanes
// (ErrorLanes.h), so its figures do not depend on how its stream was cut; merging two sums adds
// them, so figures merged from parts depend on the order of the merge: merge in element order.
struct ErrorSums {
    std::uint64_t count = 0;
    std::uint64_t nonFiniteCount = 0;
    double sumSquaredError = 0.0;
    double sumAbsError = 0.0;
    double maxAbsError = 0.0;
    double sumReferenceSquared = 0.0;
    double sumOtherSquared = 0.0;
    double sumProduct = 0.0;
    // Importance-weighted sums (compare --imatrix), over the finite pairs that have a weight:
    // sum_j w_j (x_j - q_j)^2, the objective the importance-aware quantizers minimise, and
    // sum_j w_j x_j^2 to make it relative. Zero count: no importance was given.
    std::uint64_t weightedCount = 0;
    double sumWeightedSquaredError = 0.0;
    double sumWeightedReferenceSquared = 0.0;

    void merge(const ErrorSums& later);
};

struct ErrorMetrics {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

    std::uint64_t count = 0;           // pairs in every figure below (both values finite)
    std::uint64_t nonFiniteCount = 0;  // pairs left out because either value is NaN or infinite
    double rmse = kNaN;                // sqrt(mean((other - reference)^2))
    double maxAbsError = kNaN;
    double meanAbsError = kNaN;
    double referenceRms = kNaN;        // sqrt(mean(reference^2))
    double relativeRmse = kNaN;        // rmse / referenceRms (0 when both are 0)
    double sqnrDb = kNaN;              // 10 log10(sum reference^2 / sum error^2); +inf without error
    double cosineSimilarity = kNaN;    // 1 when both vectors are all zero, 0 when only one is
    double p50AbsError = kNaN;         // percentiles of |error|, see AbsErrorHistogram
    double p95AbsError = kNaN;
    double p99AbsError = kNaN;
    // Importance-weighted (NaN without an importance matrix); see ErrorSums and
    // ImportanceMetricTable.h, which lists them for the CLI, the JSON and the GUI.
    double weightedSquaredError = kNaN;   // sum_j w_j (x_j - q_j)^2
    double relativeWeightedError = kNaN;  // that / sum_j w_j x_j^2 (0 when both are 0)
    // The exact sums every figure above except the percentiles comes from, kept so that parts
    // (tensors of a layer, experts) combine exactly: see combineErrorMetrics (ErrorMetricTable.h).
    ErrorSums sums;
};

// The distribution of |error| in bounded memory. Each |error| is rounded to float and binned by
// its exponent and top 7 mantissa bits, so a bin spans 1/128 of an octave (relative width
// <= 2^-7 = 0.78%) over the whole float range; exact zeros are counted apart. Storage per octave
// is allocated when first used: a typical tensor touches 15-30 octaves (~1 KiB each), the worst
// case is 256 KiB.
//
// quantile(q) follows NumPy's default ("linear") definition: the order statistics k = floor(r)
// and k + 1 with r = q * (n - 1), interpolated by r - k. Each order statistic is estimated
// inside its bin by spreading the bin's values evenly over it, so the estimate lies in the same
// bin as the true value: within 0.8% of it (plus f32 rounding, 2^-24), and exact for zeros.
class AbsErrorHistogram {
public:
    void add(double absError);
    void merge(const AbsErrorHistogram& other);  // integer counts: order does not matter
    // Counts gathered elsewhere (ErrorBinCounts): exact zeros, and the counts of the bins
    // firstBin, firstBin + 1, ... (each a float's bits >> 16), which are then set to 0.
    void addZeros(std::uint64_t zeros);
    void addBinCounts(std::uint32_t firstBin, std::span<std::uint32_t> counts);
    void clear();  // no values, storage kept
    std::uint64_t count() const { return m_count; }
    double quantile(double q) const;

private:
    static constexpr int kSubBins = 128;
    static constexpr int kOctaves = 255;  // float exponents 0 (subnormals) to 254; no infinities

    double orderStatistic(std::uint64_t k) const;

    std::uint64_t m_count = 0;
    std::uint64_t m_zeroCount = 0;
    std::vector<std::vector<std::uint64_t>> m_octaves = std::vector<std::vector<std::uint64_t>>(kOctaves);
};

// The summation grid of the plain sums (ErrorLanes.h has the kernels): element i of an
// accumulator's stream belongs to block i / kErrorSumBlock and, in it, to lane i % kErrorSumLanes.
inline constexpr std::size_t kErrorSumLanes = 8;
inline constexpr std::uint64_t kErrorSumBlock = 4096;  // a multiple of kErrorSumLanes

// The lanes of one open block, each summed in element order. Pairs with a NaN or infinity add
// +0 to every lane (as if skipped: a lane starts at +0 and never becomes -0) and are counted in
// nonFiniteCount.
struct ErrorLaneSums {
    double squaredError[kErrorSumLanes] = {};
    double absError[kErrorSumLanes] = {};
    double maxAbsError[kErrorSumLanes] = {};
    double referenceSquared[kErrorSumLanes] = {};
    double otherSquared[kErrorSumLanes] = {};
    double product[kErrorSumLanes] = {};
    std::uint64_t count = 0;
    std::uint64_t nonFiniteCount = 0;

    // The block's sums: lanes folded as ((0+1)+(2+3))+((4+5)+(6+7)); max and counts exact.
    ErrorSums folded() const;
};

class ErrorBinCounts;

// A stretch of an accumulator's stream summed away from it (on any thread), so that adding it
// later in stream order is cheap: every whole block of the grid is already folded, and its
// |error| counts are already binned. Only the pairs before its first and after its last block
// boundary wait for ErrorAccumulator::addPrepared, which needs the stretch's values again.
class PreparedErrorRange {
public:
    // Prepares pairs [0, n) that sit at stream position `position` of the accumulator they go to.
    void prepare(std::uint64_t position, std::span<const float> reference, std::span<const float> other);

private:
    friend class ErrorAccumulator;
    std::uint64_t m_position = 0;
    std::size_t m_size = 0;
    std::size_t m_head = 0;        // pairs before the first block boundary
    std::size_t m_tailBegin = 0;   // pairs from here are after the last boundary
    std::vector<ErrorSums> m_blocks;  // the whole blocks between, folded, in order
    AbsErrorHistogram m_histogram;    // every pair's |error|
};

class ErrorAccumulator {
public:
    // Adds reference[i] vs other[i] for every i; both spans have the same length.
    void add(std::span<const float> reference, std::span<const float> other);
    // The same as add(reference, other) for a range prepared at this accumulator's position
    // (streamPosition()); false, and nothing added, when it was prepared for another position or size.
    bool addPrepared(const PreparedErrorRange& prepared, std::span<const float> reference, std::span<const float> other);
    std::uint64_t streamPosition() const { return m_position; }  // pairs added since the grid started
    // add(), plus the importance-weighted sums with weights[i] for pair i (ImportanceErrorMetrics.cpp).
    void addWeighted(std::span<const float> reference, std::span<const float> other, std::span<const float> weights);
    // Only the weighted sums of pairs already add()ed.
    void addWeightedOnly(std::span<const float> reference, std::span<const float> other, std::span<const float> weights);
    // Only the weighted sums of pairs already add()ed, plus everything of them into `part` (e.g.
    // the pairs' expert): its plain sums on its own grid, from its first pair, and no |error|
    // bins. So `part` holds exactly the sums of an accumulator fed only its pairs by
    // addWeighted(), however its pairs were cut.
    void addWeightedPart(ErrorAccumulator& part, std::span<const float> reference, std::span<const float> other,
                         std::span<const float> weights);
    // The later accumulator's sums added to this one's; a later add() starts a new grid.
    void merge(const ErrorAccumulator& later);

    ErrorSums sums() const;  // the open block included
    const AbsErrorHistogram& histogram() const { return m_histogram; }
    ErrorMetrics result() const;

    // The metrics from parts kept apart (e.g. sums merged in order, histograms merged as they came).
    static ErrorMetrics metricsFrom(const ErrorSums& sums, const AbsErrorHistogram& histogram);

private:
    void addLanes(std::span<const float> reference, std::span<const float> other, ErrorBinCounts* bins);
    void closeBlock();

    ErrorSums m_sums;                      // whole blocks (and the weighted sums, added as they come)
    ErrorLaneSums m_open;                  // the block being filled
    std::uint64_t m_position = 0;           // pairs added since the grid started
    AbsErrorHistogram m_histogram;
};

// Shared names and renderings, so the CLI and the GUI export the same columns: the keys of
// errorMetricTable() (ErrorMetricTable.h) in its order.
const std::vector<std::string>& errorMetricNames();
std::vector<double> errorMetricValues(const ErrorMetrics& metrics);  // same order as the names
void writeErrorMetricsJson(JsonWriter& json, const ErrorMetrics& metrics);  // members of an open object

}  // namespace gguf
