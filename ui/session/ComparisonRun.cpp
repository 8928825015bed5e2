#include "ui/session/ComparisonRun.h"

#include "core/compare/ComparisonEngine.h"

#include <algorithm>

ComparisonRun::ComparisonRun(std::shared_ptr<const gguf::ModelComparison> comparison, QObject* parent,
                             std::uint64_t chunkElements)
    : QObject(parent), m_comparison(std::move(comparison)), m_chunkElements(chunkElements)
{
}

bool ComparisonRun::isRunning() const
{
    return m_jobs.isRunning();
}

void ComparisonRun::cancel()
{
    m_jobs.cancel();
}

namespace {

// A job holds one queued task per chunk: a 70B model has some 270,000 ranges per column, so
// consecutive units share a chunk beyond this many (still enough steps for a progress bar).
constexpr std::size_t kMaxChunks = 4096;

// The engine refers to the comparison, so both live in one state the job's chunks share.
struct RunState {
    RunState(std::shared_ptr<const gguf::ModelComparison> shared, std::uint64_t chunkElements)
        : comparison(std::move(shared)), engine(*comparison, chunkElements)
    {
    }
    std::shared_ptr<const gguf::ModelComparison> comparison;
    gguf::ComparisonEngine engine;
};

gguf::Status statusOf(const gguf::UnitOutcome& outcome)
{
    switch (outcome.outcome) {
    case gguf::WorkOutcome::Done: return gguf::Ok{};
    case gguf::WorkOutcome::Cancelled: return gguf::Error{"cancelled", gguf::Error::kNoOffset, {}};
    case gguf::WorkOutcome::Failed: break;
    }
    return *outcome.error;
}

}  // namespace

void ComparisonRun::start()
{
    auto state = std::make_shared<RunState>(m_comparison, m_chunkElements);
    const std::size_t units = state->engine.unitCount();
    const std::size_t chunks = std::min(units, kMaxChunks);
    // Chunk k runs units [k * units / chunks, (k + 1) * units / chunks) in order. The pool starts
    // chunks in any order and stops starting them once cancelled; the engine allows both (a unit
    // waits only for units already running, and hears the cancellation while it waits).
    // The chunks add into the engine's cells; the figures are taken from it once all are in.
    BackgroundJob* job = m_jobs.runChunks(
        static_cast<int>(chunks),
        [state, units, chunks](int chunk, const JobControl& control) -> gguf::Status {
            const auto k = static_cast<std::size_t>(chunk);
            const auto isCancelled = [&control] { return control.isCancelled(); };
            for (std::size_t unit = k * units / chunks; unit < (k + 1) * units / chunks; ++unit) {
                if (gguf::Status s = statusOf(state->engine.runUnit(unit, isCancelled)); !s)
                    return s;
            }
            return gguf::Ok{};
        },
        [this, state](const std::vector<gguf::Ok>&) { emit finished(std::make_shared<gguf::ComparisonResults>(state->engine.results())); },
        // Every chunk has returned by now, so no unit is adding to a cell any more.
        [this, state](const JobOutcome& outcome) {
            emit failed(outcome, std::make_shared<gguf::ComparisonResults>(state->engine.results()));
        });
    connect(job, &BackgroundJob::progress, this, &ComparisonRun::progress);
}
