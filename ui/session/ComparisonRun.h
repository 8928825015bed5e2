#pragma once
// Computes every computable cell of a comparison on the job pool with the core's ComparisonEngine,
// the same engine the CLI's runComparison schedules, so the figures equal the CLI's to the last
// bit. The engine's units are element ranges, so one large tensor keeps every pool thread busy;
// consecutive units share a job chunk when there are very many. Results come back as a plain
// value on the GUI thread.

#include "core/compare/ModelComparison.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <QPointer>
#include <memory>

class ComparisonRun : public QObject {
    Q_OBJECT
public:
    // `chunkElements`: the engine's range size (smaller ranges: finer progress, more units).
    ComparisonRun(std::shared_ptr<const gguf::ModelComparison> comparison, QObject* parent = nullptr,
                  std::uint64_t chunkElements = gguf::kComparisonChunkElements);
    void start();  // a newer start makes an older run stale: it is cancelled and its end dropped
    void cancel();
    BackgroundJob* job() const { return m_jobs.current(); }  // the running job, or null
    bool isRunning() const;

signals:
    void progress(int doneChunks, int totalChunks);
    void finished(std::shared_ptr<const gguf::ComparisonResults> results);
    // Cancelled (after cancel()) or failed; `finishedCells` holds the cells computed before it
    // stopped (the others empty, the totals over those cells only): a remote file that stops
    // answering mid-run does not cost the tensors already done.
    void failed(const JobOutcome& outcome, std::shared_ptr<const gguf::ComparisonResults> finishedCells);

private:
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::uint64_t m_chunkElements;
    JobRunner m_jobs{this, JobPriority::Background};  // a newer start() makes an older run's end stale
};
