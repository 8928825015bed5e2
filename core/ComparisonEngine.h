#pragma once
// The work of computing a comparison, cut into units that any scheduler runs: one unit per
// computable cell (tensor x column), which streams the cell's ranges in order into one
// accumulator, so a cell's figures never depend on threads or on the order units run in. The
// CLI's runComparison runs the units on std::threads, the GUI's ComparisonRun on the job pool;
// both take results() from here, so both give the same figures to the last bit.
//
// Contract: runUnit may be called from any thread, concurrently for distinct units, at most once
// per unit; results() only after every unit returned Done. The engine refers to `comparison`,
// which must outlive it.

#include "ModelComparison.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

namespace gguf {

enum class WorkOutcome : std::uint8_t { Done, Cancelled, Failed };

struct UnitOutcome {
    WorkOutcome outcome = WorkOutcome::Done;
    std::optional<Error> error;  // set when Failed
};

class ComparisonEngine {
public:
    explicit ComparisonEngine(const ModelComparison& comparison, std::uint64_t chunkElements = kComparisonChunkElements);

    // Units in row order, then column order.
    std::size_t unitCount() const { return m_units.size(); }
    std::size_t unitRow(std::size_t unit) const { return m_units[unit].row; }
    std::size_t unitColumn(std::size_t unit) const { return m_units[unit].column; }
    std::uint64_t unitElements(std::size_t unit) const { return m_units[unit].elements; }
    std::uint64_t totalElements() const { return m_totalElements; }

    // Computes one cell. `cancelled` is polled before each range (Cancelled when it returns
    // true); `rangeDone` hears the elements of each finished range. Either may be empty.
    UnitOutcome runUnit(std::size_t unit, const std::function<bool()>& cancelled = {},
                        const std::function<void(std::uint64_t elements)>& rangeDone = {});

    // Every cell's metrics, and per column every computed tensor together: sums merged in row
    // order, |error| histograms merged (integer counts, so their order does not matter).
    ComparisonResults results() const;

private:
    struct Unit {
        std::size_t row;
        std::size_t column;
        std::uint64_t elements;
    };

    const ModelComparison& m_comparison;
    std::uint64_t m_chunkElements;
    std::vector<Unit> m_units;
    std::uint64_t m_totalElements = 0;
    std::vector<std::optional<ErrorMetrics>> m_unitMetrics;  // one slot per unit, written by its runner
    std::mutex m_histogramMutex;                             // guards m_columnHistograms
    std::vector<AbsErrorHistogram> m_columnHistograms;
};

}  // namespace gguf
