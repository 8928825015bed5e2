#pragma once
// The work of computing a comparison, cut into units that any scheduler runs: one unit per
// element range of each computable cell (tensor x column), so a single large tensor keeps every
// thread busy. The CLI's runComparison runs the units on a TaskExecutor, the GUI's ComparisonRun on
// the job pool; both take results() from here, so both give the same figures to the last bit.
//
// How a cell stays bit-identical to one thread's: a unit reconstructs its range (dequantize, and
// for a simulated column quantize and dequantize again) and sums the range's whole blocks of the
// error grid (PreparedErrorRange, ErrorLanes.h) in parallel with any other unit, then waits for
// its turn and adds the range to the cell's one accumulator in range order, exactly as one thread
// streaming the cell would: the turn only adds the pairs around the range's ends, the folded
// blocks and the importance-weighted sums (with, for a 3-D tensor, each expert's own sums). The
// unit that adds the last range finishes the cell.
//
// Contract:
// - runUnit may be called from any thread, concurrently for any units, at most once per unit,
//   in any order. A call computes the lowest range of the unit's cell that no call has taken yet
//   (not necessarily the unit's own), so within a cell the ranges are taken in order whatever
//   order units start in. A call only ever waits for calls that took earlier ranges of the same
//   cell, which are running and never wait for a later one: waiting cannot deadlock, even when a
//   scheduler stops starting units.
// - While waiting for its turn a call polls `cancelled` (at least every kTurnPollMilliseconds)
//   and returns Cancelled when it becomes true.
// - Once a call of a cell is cancelled or fails, every other call of that cell (waiting or yet
//   to come) returns the same outcome, Failed ones with a copy of the first error: a cell is
//   computed whole or not at all.
// - results() only once no call is running. After every unit returned Done it holds every cell;
//   after a run stopped (cancelled, failed) only the cells that finished, the totals over those
//   (a cell's histogram joins its column's when the cell finishes). The engine refers to `comparison`, which must
//   outlive it. At most one range's two float buffers per concurrent call are held at any time.

#include "core/compare/ModelComparison.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace gguf {

struct TensorImportance;

enum class WorkOutcome : std::uint8_t { Done, Cancelled, Failed };

struct UnitOutcome {
    WorkOutcome outcome = WorkOutcome::Done;
    std::optional<Error> error;  // set when Failed
};

class ComparisonEngine {
public:
    static constexpr int kTurnPollMilliseconds = 20;

    explicit ComparisonEngine(const ModelComparison& comparison, std::uint64_t chunkElements = kComparisonChunkElements);
    ~ComparisonEngine();
    ComparisonEngine(const ComparisonEngine&) = delete;
    ComparisonEngine& operator=(const ComparisonEngine&) = delete;

    // Cells (row order, then column order) come in bands of kCellsPerBand, and a band's units
    // interleave its cells' ranges (range 0 of each cell, then range 1, ...): threads that take
    // units in order then add to different cells side by side (adding, which cannot overlap
    // within a cell, is most of the work when both columns are files) while few accumulators are
    // open at once. A one-tensor file's units are its ranges in order.
    static constexpr std::size_t kCellsPerBand = 8;
    std::size_t unitCount() const { return m_units.size(); }
    std::size_t unitRow(std::size_t unit) const { return m_cells[m_units[unit].cell].row; }
    std::size_t unitColumn(std::size_t unit) const { return m_cells[m_units[unit].cell].column; }
    std::uint64_t totalElements() const { return m_totalElements; }

    // Computes one range of the unit's cell (see the contract above). `cancelled` is polled
    // before the range is taken, before it is added and while waiting for the turn; `rangeDone`
    // hears the range's elements once it is added. Either may be empty.
    UnitOutcome runUnit(std::size_t unit, const std::function<bool()>& cancelled = {},
                        const std::function<void(std::uint64_t elements)>& rangeDone = {});

    // Every cell's metrics, and per column every computed tensor together: sums merged in row
    // order, |error| histograms merged (integer counts, so their order does not matter).
    ComparisonResults results() const;

private:
    struct Unit {
        std::size_t cell;  // a cell has one unit per range
    };
    struct Cell {
        std::size_t row = 0;
        std::size_t column = 0;
        std::vector<ElementRange> ranges;
        // Guarded by m_mutex, except `accumulator`: only the call whose turn it is touches it.
        std::size_t nextToTake = 0;
        std::size_t nextToAdd = 0;
        std::unique_ptr<ErrorAccumulator> accumulator;  // from the first range's turn to the last's
        std::optional<ErrorMetrics> metrics;            // once the last range is added
        std::optional<WorkOutcome> abandoned;           // Cancelled or Failed
        std::optional<Error> error;                     // when Failed
        // With an importance matrix covering the tensor: its weights, and for a 3-D tensor the
        // sums per expert, each on its own grid (touched by the turn's holder only, like the
        // accumulator; they keep no |error| bins).
        const TensorImportance* importance = nullptr;
        std::vector<ErrorAccumulator> expertAccumulators;
        std::vector<ErrorMetrics> expertMetrics;  // once the last range is added
    };
    struct RangeBuffers;
    class TurnGuard;

    UnitOutcome abandonedOutcome(const Cell& cell) const;  // m_mutex held
    void abandon(Cell& cell, WorkOutcome outcome, std::optional<Error> error);
    void addWeightedRange(Cell& cell, ElementRange range, std::span<const float> reference, std::span<const float> other,
                          std::span<const float> weights);
    std::unique_ptr<RangeBuffers> takeBuffers();
    void returnBuffers(std::unique_ptr<RangeBuffers> buffers);

    const ModelComparison& m_comparison;
    std::vector<Unit> m_units;
    std::vector<Cell> m_cells;
    std::uint64_t m_totalElements = 0;
    mutable std::mutex m_mutex;  // guards the cells' turn state, m_columnHistograms, m_spareBuffers
    std::condition_variable m_turnPassed;
    std::vector<AbsErrorHistogram> m_columnHistograms;
    std::vector<std::unique_ptr<RangeBuffers>> m_spareBuffers;  // reused, so ranges do not allocate
    std::vector<std::unique_ptr<const TensorImportance>> m_rowImportance;  // per row; null without importance
};

}  // namespace gguf
