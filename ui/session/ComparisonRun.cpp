#include "session/ComparisonRun.h"

#include "session/BackgroundJob.h"

#include <optional>
#include <vector>

namespace {

struct CellRef {
    std::size_t row;
    std::size_t column;
};

// Per-cell accumulators live until the end: the column totals need them merged in row order.
struct RunState {
    std::vector<CellRef> cells;
    std::vector<std::optional<gguf::ErrorAccumulator>> accumulators;  // one per entry of cells
};

}  // namespace

ComparisonRun::ComparisonRun(std::shared_ptr<const gguf::ModelComparison> comparison, QObject* parent)
    : QObject(parent), m_comparison(std::move(comparison))
{
}

bool ComparisonRun::isRunning() const
{
    return m_job && m_job->isRunning();
}

void ComparisonRun::cancel()
{
    if (m_job)
        m_job->cancel();
}

void ComparisonRun::start()
{
    auto state = std::make_shared<RunState>();
    for (std::size_t r = 0; r < m_comparison->rows().size(); ++r)
        for (std::size_t c = 0; c < m_comparison->columns().size(); ++c)
            if (m_comparison->cellElements(r, c) > 0)
                state->cells.push_back({r, c});
    state->accumulators.resize(state->cells.size());

    // Each chunk writes only its own accumulator slot, so the vector needs no lock.
    auto* job = new BackgroundJob(static_cast<int>(state->cells.size()),
                                  [comparison = m_comparison, state](int chunk, const std::atomic<bool>& cancelled) -> gguf::Status {
                                      const CellRef cell = state->cells[static_cast<std::size_t>(chunk)];
                                      gguf::ErrorAccumulator accumulator;
                                      for (const gguf::ElementRange& range : comparison->cellRanges(cell.row, cell.column)) {
                                          if (cancelled.load(std::memory_order_relaxed))
                                              return gguf::Error{"cancelled", gguf::Error::kNoOffset, {}};
                                          if (gguf::Status s = comparison->accumulate(cell.row, cell.column, range, accumulator); !s)
                                              return s;
                                      }
                                      state->accumulators[static_cast<std::size_t>(chunk)] = std::move(accumulator);
                                      return gguf::Ok{};
                                  },
                                  this);
    m_job = job;
    connect(job, &BackgroundJob::progress, this, &ComparisonRun::progress);
    connect(job, &BackgroundJob::finished, this, [this, job, state](const JobOutcome& outcome) {
        job->deleteLater();
        if (!outcome.isDone()) {
            emit failed(outcome);
            return;
        }
        const std::size_t columnCount = m_comparison->columns().size();
        auto results = std::make_shared<gguf::ComparisonResults>();
        results->cells.assign(m_comparison->rows().size(), std::vector<std::optional<gguf::ErrorMetrics>>(columnCount));
        results->columnTotals.resize(columnCount);
        results->columnTensorCounts.assign(columnCount, 0);
        std::vector<gguf::ErrorAccumulator> totals(columnCount);
        // state->cells is in row order, so merging in its order is runComparison's row order.
        for (std::size_t i = 0; i < state->cells.size(); ++i) {
            const CellRef cell = state->cells[i];
            results->cells[cell.row][cell.column] = state->accumulators[i]->result();
            totals[cell.column].merge(*state->accumulators[i]);
            ++results->columnTensorCounts[cell.column];
        }
        for (std::size_t c = 0; c < columnCount; ++c)
            results->columnTotals[c] = totals[c].result();
        state->accumulators.clear();
        emit finished(std::move(results));
    });
}
