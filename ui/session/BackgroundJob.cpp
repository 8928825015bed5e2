#include "ui/session/BackgroundJob.h"

#include "core/gguf/FetchCancel.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include "ui/session/JobMonitor.h"
#include "ui/session/JobPool.h"

#include <QThreadPool>

struct BackgroundJob::State {
    std::atomic<bool> cancelled{false};
    ChunkWork work;
};

BackgroundJob::BackgroundJob(int chunkCount, ChunkWork work, QObject* parent, JobPriority priority)
    : QObject(parent), m_state(std::make_shared<State>()), m_chunkCount(chunkCount)
{
    m_state->work = std::move(work);
    JobMonitor::instance().jobStarted();
    if (chunkCount <= 0) {
        // Nothing to do: still finish once, but after the caller has had a chance to connect.
        QMetaObject::invokeMethod(this, [this]() { chunkDone({}); }, Qt::QueuedConnection);
        m_chunkCount = 1;
        return;
    }
    QPointer<BackgroundJob> self(this);
    for (int chunk = 0; chunk < chunkCount; ++chunk) {
        jobPool()->start([state = m_state, self, chunk, priority]() {
            yieldToGuiThread();
            setCurrentJobPriority(priority);
            // A chunk skipped after cancel() reports nothing: the flag itself decides the outcome.
            QString error;
            if (!state->cancelled.load(std::memory_order_relaxed)) {
                // Remote tensor bytes fetched below this chunk stop when the job is cancelled.
                const gguf::FetchCancelScope fetchCancel(&state->cancelled);
                if (gguf::Status status = state->work(chunk, state->cancelled); !status)
                    error = QString::fromStdString(status.error().toString());
            }
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [self, error]() {
                    if (self)
                        self->chunkDone(error);
                },
                Qt::QueuedConnection);
        }, static_cast<int>(priority));
    }
}

BackgroundJob::~BackgroundJob()
{
    if (m_running)
        JobMonitor::instance().jobFinished();
    // Chunks still queued see the flag and skip their work; running ones finish into buffers
    // they keep alive themselves.
    m_state->cancelled = true;
}

void BackgroundJob::cancel()
{
    m_state->cancelled = true;
}

void BackgroundJob::chunkDone(const QString& error)
{
    if (!m_running)
        return;
    ++m_done;
    if (!error.isEmpty() && m_firstError.isEmpty())
        m_firstError = error;
    emit progress(m_done, m_chunkCount);
    if (m_done < m_chunkCount)
        return;
    m_running = false;
    JobMonitor::instance().jobFinished();
    if (m_state->cancelled)
        emit finished(JobOutcome::cancelled());
    else if (!m_firstError.isEmpty())
        emit finished(JobOutcome::failed(m_firstError));
    else
        emit finished(JobOutcome::done());
}
