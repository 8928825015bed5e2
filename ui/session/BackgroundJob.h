#pragma once
// One running job, beneath JobRunner (JobRunner.h, the API the GUI uses): JobRunner::run creates
// it around the owner's work and hands it out only so that progress displays (JobProgressBar)
// can follow it and a caller can cancel it. It runs independent chunks (row ranges, heatmap
// bands) on the job pool; chunks touch no widgets and return a Status. Cancellation is an atomic
// flag the chunks poll; a cancelled or failed job still finishes once, with a JobOutcome saying
// which. Which ends are stale is JobTracker's business, not the job's.

#include "core/base/Result.h"
#include "ui/session/JobOutcome.h"
#include "ui/session/JobPool.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    using ChunkWork = std::function<gguf::Status(int chunk, const std::atomic<bool>& cancelled)>;

    // Starts `chunkCount` calls of `work` (chunk = 0 .. chunkCount-1), in any order and in
    // parallel, queued on the pool with `priority`. `work` must keep alive whatever it reads
    // (capture shared pointers).
    BackgroundJob(int chunkCount, ChunkWork work, QObject* parent = nullptr, JobPriority priority = JobPriority::Normal);
    ~BackgroundJob() override;

    void cancel();
    bool isRunning() const { return m_running; }
    int chunkCount() const { return m_chunkCount; }

signals:
    void progress(int doneChunks, int totalChunks);
    // Exactly once. Cancelled whenever cancel() came before the end, even if a chunk also
    // failed (the person asked to stop); failed with the first chunk's error otherwise.
    void finished(const JobOutcome& outcome);
    // The work's own progress (done of total, any unit), when it reports one (JobControl).
    void workProgress(quint64 done, quint64 total);

private:
    struct State;
    void chunkDone(const QString& error);

    std::shared_ptr<State> m_state;
    int m_chunkCount;
    int m_done = 0;
    QString m_firstError;
    bool m_running = true;
};
