#pragma once
// The one way the GUI runs background work. An owner (a view, a dialog, a loader) keeps a
// JobRunner as a member and asks it to run work; the work runs on the job pool (JobPool.h, never
// Qt's global pool), returns its value by value as a gguf::Result<T>, and the runner hands that
// value to `setData` on the owner's thread. Nothing is shared by hand between the work and the
// owner: the runner keeps the value until it is delivered.
//
// run() is a new request: it cancels the owner's older jobs and makes their results stale, so a
// late result never overwrites a newer one, whatever order the pool finishes them in (as hotspot's
// JobTracker::startJob(job, setData)). A cancelled or failed job reaches `onStop` instead, once,
// unless it is stale; a stale or cancelled job's value is dropped. Work polls JobControl for
// cancellation and may report progress through it. A runner's jobs queue on the pool with the
// runner's priority (JobPool.h): an owner that answers typing or pointing says Interactive, one
// that sweeps a whole model says Background. GUI thread only.

#include "ui/session/BackgroundJob.h"
#include "ui/session/JobTracker.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

// What JobRunner passes between a job's work (any thread) and its owner (the GUI thread): the
// value type a work's gguf::Result carries, and the work's newest progress.
namespace jobhandoff {
template <class R>
struct ResultValue;
template <class T>
struct ResultValue<gguf::Result<T>> {
    using type = T;
};

// The newest progress of one job, written by its work on any thread and posted to the job on the
// GUI thread at most once at a time (later values overwrite earlier ones that were not yet shown).
struct WorkProgress {
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::uint64_t> total{0};
    std::atomic<bool> posted{false};
    QPointer<BackgroundJob> job;  // set on the GUI thread before any work starts
};
}  // namespace jobhandoff

// What running work sees of its job.
class JobControl {
public:
    JobControl(const std::atomic<bool>& cancelled, std::shared_ptr<jobhandoff::WorkProgress> progress)
        : m_cancelled(cancelled), m_progress(std::move(progress))
    {
    }
    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }
    // For core calls that take a cancel flag.
    const std::atomic<bool>* cancelFlag() const { return &m_cancelled; }
    const std::atomic<bool>& cancelled() const { return m_cancelled; }

    // `done` of `total` (any unit), from any thread; the owner sees the newest value through
    // BackgroundJob::workProgress on the GUI thread.
    void setProgress(std::uint64_t done, std::uint64_t total) const
    {
        m_progress->done.store(done, std::memory_order_relaxed);
        m_progress->total.store(total, std::memory_order_relaxed);
        if (m_progress->posted.exchange(true))
            return;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [progress = m_progress]() {
                progress->posted = false;
                if (progress->job)
                    emit progress->job->workProgress(progress->done.load(), progress->total.load());
            },
            Qt::QueuedConnection);
    }

private:
    const std::atomic<bool>& m_cancelled;
    std::shared_ptr<jobhandoff::WorkProgress> m_progress;
};

class JobRunner {
public:
    using Generation = JobTracker::Generation;
    // The default `onStop`: a cancelled or failed job shows nothing.
    struct IgnoreStop {
        void operator()(const JobOutcome&) const {}
    };

    explicit JobRunner(QObject* owner, JobPriority priority = JobPriority::Normal) : m_owner(owner), m_priority(priority) {}
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // A new request: cancels the running jobs and makes them stale, then runs `work` once on
    // the pool. `work(const JobControl&)` returns gguf::Result<T>; `setData(T)` runs on the owner's
    // thread when it succeeded and is still current; `onStop(const JobOutcome&)` when it was
    // cancelled or failed and is still current. Returns the job, for progress displays; the
    // runner deletes it when it ends.
    template <class Work, class SetData, class OnStop = IgnoreStop>
    BackgroundJob* run(Work work, SetData setData, OnStop onStop = {})
    {
        m_tracker.renew();
        return runAlongside(std::move(work), std::move(setData), std::move(onStop));
    }

    // As run(), but `work(int chunk, const JobControl&)` is called for every chunk in
    // [0, chunkCount), in any order and in parallel, and `setData(std::vector<T>)` gets their
    // values in chunk order once all succeeded.
    template <class Work, class SetData, class OnStop = IgnoreStop>
    BackgroundJob* runChunks(int chunkCount, Work work, SetData setData, OnStop onStop = {})
    {
        m_tracker.renew();
        return runChunksAlongside(chunkCount, std::move(work), std::move(setData), std::move(onStop));
    }

    // As run(), but part of the current request: older jobs keep running and stay current.
    template <class Work, class SetData, class OnStop = IgnoreStop>
    BackgroundJob* runAlongside(Work work, SetData setData, OnStop onStop = {})
    {
        auto chunkWork = [work = std::move(work)](int, const JobControl& control) mutable { return work(control); };
        auto deliver = [setData = std::move(setData)](auto&& values) mutable { setData(std::move(values.front())); };
        return start(1, std::move(chunkWork), std::move(deliver), std::move(onStop));
    }
    template <class Work, class SetData, class OnStop = IgnoreStop>
    BackgroundJob* runChunksAlongside(int chunkCount, Work work, SetData setData, OnStop onStop = {})
    {
        return start(chunkCount, std::move(work), std::move(setData), std::move(onStop));
    }

    // Makes every running job stale without starting another (the owner shows something else).
    Generation renew() { return m_tracker.renew(); }
    // Cancels the running jobs: their ends still arrive, as cancelled, through onStop.
    void cancel() { m_tracker.cancel(); }
    bool isRunning() const { return m_tracker.isRunning(); }
    Generation generation() const { return m_tracker.generation(); }
    bool isCurrent(Generation generation) const { return m_tracker.isCurrent(generation); }
    // The newest job still running, or null.
    BackgroundJob* current() const { return m_tracker.current(); }

    // `onProgress()` after each finished chunk of `job` while it is current: the place to take
    // partial results (see PartialResults).
    template <class OnProgress>
    void onChunkDone(BackgroundJob* job, OnProgress onProgress)
    {
        m_tracker.onProgress(job, m_owner, std::move(onProgress));
    }
    // `onProgress(done, total)` whenever `job`'s work reports progress, while it is current.
    template <class OnProgress>
    void onWorkProgress(BackgroundJob* job, OnProgress onProgress)
    {
        const Generation generation = m_tracker.generation();
        QObject::connect(job, &BackgroundJob::workProgress, m_owner,
                         [this, generation, onProgress = std::move(onProgress)](quint64 done, quint64 total) mutable {
                             if (isCurrent(generation))
                                 onProgress(done, total);
                         });
    }

private:
    template <class Work, class SetData, class OnStop>
    BackgroundJob* start(int chunkCount, Work work, SetData setData, OnStop onStop)
    {
        using R = std::invoke_result_t<Work&, int, const JobControl&>;
        using T = typename jobhandoff::ResultValue<R>::type;
        const auto count = static_cast<std::size_t>(std::max(chunkCount, 0));
        // Each chunk writes only its own slot; the GUI thread reads them after the last chunk.
        auto chunkValues = std::make_shared<std::vector<std::optional<T>>>(count);
        auto progress = std::make_shared<jobhandoff::WorkProgress>();
        auto* job = new BackgroundJob(
            chunkCount,
            [work = std::move(work), chunkValues, progress](int chunk, const std::atomic<bool>& cancelled) mutable -> gguf::Status {
                const JobControl control(cancelled, progress);
                R result = work(chunk, control);
                if (!result)
                    return result.error();
                (*chunkValues)[static_cast<std::size_t>(chunk)].emplace(std::move(result).value());
                return gguf::Ok{};
            },
            m_owner, m_priority);
        progress->job = job;
        m_tracker.track(job, m_owner,
                        [chunkValues, setData = std::move(setData), onStop = std::move(onStop)](const JobOutcome& outcome) mutable {
                            if (!outcome.isDone()) {
                                onStop(outcome);
                                return;
                            }
                            std::vector<T> values;
                            values.reserve(chunkValues->size());
                            for (std::optional<T>& value : *chunkValues)
                                values.push_back(std::move(*value));
                            setData(std::move(values));
                        });
        return job;
    }

    QObject* m_owner;
    JobPriority m_priority;
    JobTracker m_tracker;
};
