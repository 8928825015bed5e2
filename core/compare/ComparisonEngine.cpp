#include "core/compare/ComparisonEngine.h"

#include "core/compare/ImportanceErrorMetrics.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>

namespace gguf {

struct ComparisonEngine::RangeBuffers {
    std::vector<float> reference;
    std::vector<float> other;
    std::vector<float> weights;  // with an importance matrix
    PreparedErrorRange prepared;  // the plain sums of the range's whole blocks, summed before the turn
};

ComparisonEngine::ComparisonEngine(const ModelComparison& comparison, std::uint64_t chunkElements)
    : m_comparison(comparison), m_columnHistograms(comparison.columns().size())
{
    m_rowImportance.resize(comparison.rows().size());
    if (const ImportanceMatrix* importance = comparison.importance())
        for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
            const TensorInfo& tensor = *comparison.rows()[r].reference;
            if (auto weights = tensorImportance(importance->find(tensor.name), tensor))
                m_rowImportance[r] = std::make_unique<const TensorImportance>(std::move(*weights));
        }
    for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
        for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
            if (!comparison.rows()[r].cells[c].ok())
                continue;
            Cell& cell = m_cells.emplace_back();
            cell.row = r;
            cell.column = c;
            cell.importance = m_rowImportance[r].get();
            cell.ranges = comparison.cellRanges(r, c, chunkElements);
            if (cell.ranges.empty())
                cell.ranges.push_back({0, 0});  // a tensor without elements still gets its (empty) figures
            m_totalElements += comparison.cellElements(r, c);
        }
    }
    // Within a band, range i of every cell comes before range i + 1 of any.
    for (std::size_t band = 0; band < m_cells.size(); band += kCellsPerBand) {
        const std::size_t bandEnd = std::min(m_cells.size(), band + kCellsPerBand);
        std::size_t mostRanges = 0;
        for (std::size_t c = band; c < bandEnd; ++c)
            mostRanges = std::max(mostRanges, m_cells[c].ranges.size());
        for (std::size_t i = 0; i < mostRanges; ++i)
            for (std::size_t c = band; c < bandEnd; ++c)
                if (i < m_cells[c].ranges.size())
                    m_units.push_back({c});
    }
}

ComparisonEngine::~ComparisonEngine() = default;

UnitOutcome ComparisonEngine::abandonedOutcome(const Cell& cell) const
{
    if (*cell.abandoned == WorkOutcome::Failed)
        return {WorkOutcome::Failed, cell.error};
    return {WorkOutcome::Cancelled, std::nullopt};
}

void ComparisonEngine::abandon(Cell& cell, WorkOutcome outcome, std::optional<Error> error)
{
    const std::lock_guard lock(m_mutex);
    if (!cell.abandoned) {
        cell.abandoned = outcome;
        cell.error = std::move(error);
        // The accumulator stays: the call whose turn it is may be adding to it right now.
    }
    m_turnPassed.notify_all();  // waiting calls of this cell return instead of waiting for this range
}

std::unique_ptr<ComparisonEngine::RangeBuffers> ComparisonEngine::takeBuffers()
{
    {
        const std::lock_guard lock(m_mutex);
        if (!m_spareBuffers.empty()) {
            std::unique_ptr<RangeBuffers> buffers = std::move(m_spareBuffers.back());
            m_spareBuffers.pop_back();
            return buffers;
        }
    }
    return std::make_unique<RangeBuffers>();
}

void ComparisonEngine::returnBuffers(std::unique_ptr<RangeBuffers> buffers)
{
    const std::lock_guard lock(m_mutex);
    m_spareBuffers.push_back(std::move(buffers));
}

// The turn's holder adds the weighted sums of a range whose plain figures are already added:
// to the cell and, for a 3-D tensor, piece by piece to each expert's sums (all of them).
void ComparisonEngine::addWeightedRange(Cell& cell, ElementRange range, std::span<const float> reference,
                                        std::span<const float> other, std::span<const float> weights)
{
    const TensorImportance& importance = *cell.importance;
    if (importance.experts < 2) {
        cell.accumulator->addWeightedOnly(reference, other, weights);
        return;
    }
    // The cell's weighted sums and each expert's sums in one more pass, piece by piece in element order.
    if (cell.expertAccumulators.empty())
        cell.expertAccumulators.resize(importance.experts);
    std::uint64_t element = range.begin;
    std::size_t offset = 0;
    while (offset < reference.size()) {
        const std::uint64_t expert = element / importance.expertElements;
        const std::uint64_t expertEnd = (expert + 1) * importance.expertElements;
        const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(reference.size() - offset, expertEnd - element));
        cell.accumulator->addWeightedPart(cell.expertAccumulators[static_cast<std::size_t>(expert)], reference.subspan(offset, length),
                                          other.subspan(offset, length), weights.subspan(offset, length));
        offset += length;
        element += length;
    }
}

UnitOutcome ComparisonEngine::runUnit(std::size_t unit, const std::function<bool()>& cancelled,
                                      const std::function<void(std::uint64_t)>& rangeDone)
{
    Cell& cell = m_cells[m_units[unit].cell];
    const auto isCancelled = [&] { return cancelled && cancelled(); };
    if (isCancelled()) {
        abandon(cell, WorkOutcome::Cancelled, std::nullopt);
        return {WorkOutcome::Cancelled, std::nullopt};
    }
    std::size_t index = 0;
    {
        const std::lock_guard lock(m_mutex);
        if (cell.abandoned)
            return abandonedOutcome(cell);
        if (cell.nextToTake == cell.ranges.size())
            return {WorkOutcome::Failed, Error{"comparison engine: more calls than units for a cell", Error::kNoOffset, {}}};
        index = cell.nextToTake++;
    }
    // From here this call owes the cell its range: it adds it, or it abandons the cell so that no
    // later range waits for it.
    const ElementRange range = cell.ranges[index];
    const TensorInfo& tensor = *m_comparison.rows()[cell.row].reference;
    std::unique_ptr<RangeBuffers> buffers;
    try {
        buffers = takeBuffers();
        const auto n = static_cast<std::size_t>(range.size());
        buffers->reference.resize(n);
        buffers->other.resize(n);
        const std::span<float> reference(buffers->reference.data(), n);
        const std::span<float> other(buffers->other.data(), n);
        if (n > 0) {
            if (Status s = m_comparison.reconstruct(cell.row, cell.column, range, reference, other); !s) {
                returnBuffers(std::move(buffers));
                abandon(cell, WorkOutcome::Failed, s.error());
                return {WorkOutcome::Failed, s.error()};
            }
        }
        if (cell.importance) {
            buffers->weights.resize(n);
            cell.importance->fill(range.begin, buffers->weights);
        }
        // Most of the adding happens here, in parallel with other ranges of the cell: the turn
        // then only adds the pairs around the range's ends and the folded blocks (ErrorLanes.h).
        buffers->prepared.prepare(range.begin, reference, other);

        // Wait for the turn, waking at least every poll interval to hear a cancellation.
        for (;;) {
            if (isCancelled()) {
                returnBuffers(std::move(buffers));
                abandon(cell, WorkOutcome::Cancelled, std::nullopt);
                return {WorkOutcome::Cancelled, std::nullopt};
            }
            std::unique_lock lock(m_mutex);
            const bool ready = m_turnPassed.wait_for(lock, std::chrono::milliseconds(kTurnPollMilliseconds),
                                                     [&] { return cell.nextToAdd == index || cell.abandoned; });
            if (!ready)
                continue;
            if (cell.abandoned) {
                lock.unlock();
                returnBuffers(std::move(buffers));
                const std::lock_guard relock(m_mutex);
                return abandonedOutcome(cell);
            }
            if (!cell.accumulator)
                cell.accumulator = std::make_unique<ErrorAccumulator>();
            break;
        }

        // Only the turn's holder touches the accumulator, and the mutex hands it from one holder
        // to the next, so no lock is needed while adding.
        if (!cell.accumulator->addPrepared(buffers->prepared, reference, other))
            throw std::logic_error("range prepared for another position of the cell");
        if (cell.importance)
            addWeightedRange(cell, range, reference, other, buffers->weights);
        returnBuffers(std::move(buffers));
        const bool last = index + 1 == cell.ranges.size();
        std::optional<ErrorMetrics> metrics;
        std::vector<ErrorMetrics> expertMetrics;
        if (last) {
            metrics = cell.accumulator->result();
            for (const ErrorAccumulator& expert : cell.expertAccumulators)
                expertMetrics.push_back(ErrorAccumulator::metricsFrom(expert.sums(), AbsErrorHistogram{}));
        }
        {
            const std::lock_guard lock(m_mutex);
            if (last) {
                m_columnHistograms[cell.column].merge(cell.accumulator->histogram());
                cell.metrics = std::move(metrics);
                cell.expertMetrics = std::move(expertMetrics);
                cell.accumulator.reset();
            }
            ++cell.nextToAdd;
            m_turnPassed.notify_all();
        }
    } catch (const std::exception& e) {
        // Allocation failure, most likely; the cell cannot be completed, but its waiters must hear.
        Error error{std::string(tensor.name) + ": comparison range [" + std::to_string(range.begin) + ", " +
                        std::to_string(range.end) + "): " + e.what(),
                    Error::kNoOffset, {}};
        abandon(cell, WorkOutcome::Failed, error);
        return {WorkOutcome::Failed, std::move(error)};
    }
    if (rangeDone)
        rangeDone(range.size());
    return {};
}

ComparisonResults ComparisonEngine::results() const
{
    const std::lock_guard lock(m_mutex);
    const std::size_t columnCount = m_comparison.columns().size();
    ComparisonResults results;
    results.cells.assign(m_comparison.rows().size(), std::vector<std::optional<ErrorMetrics>>(columnCount));
    std::vector<ErrorSums> totals(columnCount);
    results.columnTensorCounts.assign(columnCount, 0);
    if (m_comparison.importance())
        results.expertCells.assign(m_comparison.rows().size(), std::vector<std::vector<ErrorMetrics>>(columnCount));
    // Cells are in row order, so this merges each column's cells in row order.
    for (const Cell& cell : m_cells) {
        if (!cell.metrics)
            continue;
        results.cells[cell.row][cell.column] = cell.metrics;
        if (!results.expertCells.empty())
            results.expertCells[cell.row][cell.column] = cell.expertMetrics;
        totals[cell.column].merge(cell.metrics->sums);
        ++results.columnTensorCounts[cell.column];
    }
    for (std::size_t c = 0; c < columnCount; ++c)
        results.columnTotals.push_back(ErrorAccumulator::metricsFrom(totals[c], m_columnHistograms[c]));
    return results;
}

}  // namespace gguf
