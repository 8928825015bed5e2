#include "ComparisonRun.h"

#include "BackgroundJob.h"

#include "ComparisonEngine.h"

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

namespace {

// The engine refers to the comparison, so both live in one state the job's chunks share.
struct RunState {
    explicit RunState(std::shared_ptr<const gguf::ModelComparison> shared) : comparison(std::move(shared)), engine(*comparison) {}
    std::shared_ptr<const gguf::ModelComparison> comparison;
    gguf::ComparisonEngine engine;
};

}  // namespace

void ComparisonRun::start()
{
    auto state = std::make_shared<RunState>(m_comparison);
    auto* job = new BackgroundJob(static_cast<int>(state->engine.unitCount()),
                                  [state](int chunk, const std::atomic<bool>& cancelled) -> gguf::Status {
                                      const gguf::UnitOutcome outcome = state->engine.runUnit(
                                          static_cast<std::size_t>(chunk), [&cancelled] { return cancelled.load(std::memory_order_relaxed); });
                                      switch (outcome.outcome) {
                                      case gguf::WorkOutcome::Done: return gguf::Ok{};
                                      case gguf::WorkOutcome::Cancelled: return gguf::Error{"cancelled", gguf::Error::kNoOffset, {}};
                                      case gguf::WorkOutcome::Failed: break;
                                      }
                                      return *outcome.error;
                                  },
                                  this);
    m_job = job;
    connect(job, &BackgroundJob::progress, this, &ComparisonRun::progress);
    connect(job, &BackgroundJob::finished, this, [this, job, state](bool succeeded, const QString& error) {
        job->deleteLater();
        if (!succeeded) {
            emit failed(error);
            return;
        }
        emit finished(std::make_shared<gguf::ComparisonResults>(state->engine.results()));
    });
}
