#pragma once
// The generation bookkeeping inside JobRunner (JobRunner.h, the API the GUI uses): the running
// BackgroundJobs of one JobRunner and which request they answer. Every new request takes a new
// generation; jobs of older generations are cancelled and their ends are dropped, so a late
// result can never overwrite a newer one, whatever order the pool finishes them in. JobRunner
// passes its owner as `context`, so no callback outlives it. GUI thread only.

#include "ui/session/BackgroundJob.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <algorithm>
#include <utility>

class JobTracker {
public:
    using Generation = quint64;

    // Starts a new request: cancels every tracked job and makes their results stale.
    Generation renew()
    {
        cancel();
        m_jobs.clear();
        return ++m_generation;
    }
    Generation generation() const { return m_generation; }
    bool isCurrent(Generation generation) const { return generation == m_generation; }

    // Cancels the tracked jobs without starting a new request: their ends still arrive (as
    // cancelled) and the owner may keep what they delivered so far.
    void cancel()
    {
        for (const QPointer<BackgroundJob>& job : m_jobs)
            if (job)
                job->cancel();
    }
    bool isRunning() const
    {
        return std::any_of(m_jobs.begin(), m_jobs.end(), [](const QPointer<BackgroundJob>& job) { return job && job->isRunning(); });
    }
    // The newest job still running, or null.
    BackgroundJob* current() const
    {
        for (auto it = m_jobs.rbegin(); it != m_jobs.rend(); ++it)
            if (*it && (*it)->isRunning())
                return *it;
        return nullptr;
    }

    // Tracks `job` for the current generation. `onEnd(const JobOutcome&)` runs once when the job
    // ends, on `context`'s thread, unless a newer request came first; the job is deleted either way.
    template <class OnEnd>
    void track(BackgroundJob* job, QObject* context, OnEnd onEnd)
    {
        m_jobs.append(job);
        const Generation generation = m_generation;
        QObject::connect(job, &BackgroundJob::finished, context, [this, job, generation, onEnd = std::move(onEnd)](const JobOutcome& outcome) mutable {
            job->deleteLater();
            m_jobs.removeIf([job](const QPointer<BackgroundJob>& entry) { return !entry || entry == job; });
            if (isCurrent(generation))
                onEnd(outcome);
        });
    }

    // `onProgress()` runs after each finished chunk of `job` while its generation is current:
    // the place to collect partial results (see PartialResults).
    template <class OnProgress>
    void onProgress(BackgroundJob* job, QObject* context, OnProgress onProgress)
    {
        const Generation generation = m_generation;
        QObject::connect(job, &BackgroundJob::progress, context, [this, generation, onProgress = std::move(onProgress)]() mutable {
            if (isCurrent(generation))
                onProgress();
        });
    }

private:
    Generation m_generation = 0;
    QList<QPointer<BackgroundJob>> m_jobs;
};
