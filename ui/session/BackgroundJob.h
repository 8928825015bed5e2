#pragma once
// Runs independent chunks of core work (row ranges, heatmap bands) on the job pool and
// reports back on the GUI thread. Workers touch no widgets: they fill buffers owned by the job's
// shared state and return a Status. Cancellation is an atomic flag the chunks poll; a cancelled
// or failed job still finishes once, so its owner can tell a stale result from a fresh one.

#include "Result.h"

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
    // parallel. `work` must keep alive whatever it reads (capture shared pointers).
    BackgroundJob(int chunkCount, ChunkWork work, QObject* parent = nullptr);
    ~BackgroundJob() override;

    void cancel();
    bool isRunning() const { return m_running; }
    int chunkCount() const { return m_chunkCount; }

signals:
    void progress(int doneChunks, int totalChunks);
    // Exactly once. `error` is empty on success; "cancelled" after cancel().
    void finished(bool succeeded, const QString& error);

private:
    struct State;
    void chunkDone(const QString& error);

    std::shared_ptr<State> m_state;
    int m_chunkCount;
    int m_done = 0;
    QString m_firstError;
    bool m_running = true;
};
