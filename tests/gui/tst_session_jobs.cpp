// The session layer's job API without any widget (this suite links ggufsession, not ggufui, and
// runs under QCoreApplication): a BackgroundJob ends once as done, cancelled or failed, decided by
// the kind of end and never by the wording of a message; a JobTracker drops the end of a job
// that a newer request made stale, however the pool orders them; PartialResults hands out each
// published slot exactly once; ExpertScan reports its jobs by signal, with no progress widget.
// JobRunner, the one way the GUI runs work, hands back typed values, drops what a newer request
// made stale (values and progress alike), and reports cancellation; the loaders and runs built
// on it (ModelLoader, ComparisonRun) inherit that, and JobPoolExecutor lends the pool to core.

#include "Fixtures.h"
#include "SmallModels.h"
#include "core/gguf/Model.h"
#include "IdleWatch.h"
#include "core/compare/ModelComparison.h"
#include "ui/session/BackgroundJob.h"
#include "ui/session/ComparisonRun.h"
#include "ui/session/ExpertScan.h"
#include "ui/session/JobPool.h"
#include "ui/session/JobPoolExecutor.h"
#include "ui/session/JobRunner.h"
#include "ui/session/JobTracker.h"
#include "ui/session/ModelLoader.h"
#include "ui/session/PartialResults.h"
#include "ui/session/TensorTableModel.h"

#include <QCoreApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <atomic>
#include <optional>
#include <vector>

using namespace testsupport;

namespace {
constexpr int kTimeoutMs = 20000;

// Every thread of the job pool held until letGo() or release(): what queues meanwhile starts in
// the order the pool chooses once they are free.
class PoolHeldBusy {
public:
    PoolHeldBusy() : m_threads(jobPool()->maxThreadCount())
    {
        for (int i = 0; i < m_threads; ++i)
            jobPool()->start([this]() {
                m_started.release();
                m_open.acquire();
            });
        m_started.acquire(m_threads);
    }
    PoolHeldBusy(const PoolHeldBusy&) = delete;
    PoolHeldBusy& operator=(const PoolHeldBusy&) = delete;
    ~PoolHeldBusy() { release(); }
    int threads() const { return m_threads; }
    void letGo()
    {
        if (!m_free)
            m_open.release(m_threads);
        m_free = true;
    }
    // Lets go and waits for the pool to be idle (the holders are done with this object).
    bool release()
    {
        letGo();
        return jobPool()->waitForDone(kTimeoutMs);
    }

private:
    int m_threads;
    QSemaphore m_started;
    QSemaphore m_open;
    bool m_free = false;
};

JobOutcome runToEnd(BackgroundJob& job)
{
    QSignalSpy finished(&job, &BackgroundJob::finished);
    if (finished.isEmpty() && !finished.wait(kTimeoutMs))
        return JobOutcome::failed(QStringLiteral("timed out"));
    return finished.at(0).at(0).value<JobOutcome>();
}
}  // namespace

class TestSessionJobs : public QObject {
    Q_OBJECT

private slots:
    void noWidgetsInTheProcess()
    {
        // QTEST_GUILESS_MAIN: the session objects below work with a plain core application.
        QVERIFY(qobject_cast<QCoreApplication*>(QCoreApplication::instance()));
        QVERIFY(!QCoreApplication::instance()->inherits("QGuiApplication"));
    }

    void doneWhenEveryChunkSucceeds()
    {
        std::atomic<int> ran{0};
        BackgroundJob job(5, [&ran](int, const std::atomic<bool>&) -> gguf::Status {
            ++ran;
            return gguf::Ok{};
        });
        const JobOutcome outcome = runToEnd(job);
        QVERIFY(outcome.isDone());
        QCOMPARE(outcome.message(), QString());
        QCOMPARE(ran.load(), 5);
        QVERIFY(!job.isRunning());
    }

    // A real failure whose message mentions cancellation is still a failure: the outcome comes
    // from whether cancel() was called, not from reading the text.
    void failureThatSaysCancelledIsAFailure()
    {
        BackgroundJob job(3, [](int chunk, const std::atomic<bool>&) -> gguf::Status {
            if (chunk == 1)
                return gguf::Error{"download cancelled by the server", 42, {}};
            return gguf::Ok{};
        });
        const JobOutcome outcome = runToEnd(job);
        QVERIFY(outcome.isFailed());
        QVERIFY2(outcome.message().contains(QLatin1String("download cancelled by the server")), qPrintable(outcome.message()));
    }

    void cancelledWhenCancelledEvenIfAChunkFailed()
    {
        QSemaphore entered;
        QSemaphore proceed;
        BackgroundJob job(1, [&](int, const std::atomic<bool>& cancelled) -> gguf::Status {
            entered.release();
            proceed.acquire();
            // Core work that notices the flag returns an error; the job still ends as cancelled.
            return cancelled ? gguf::Status(gguf::Error{"stopped", gguf::Error::kNoOffset, {}}) : gguf::Status(gguf::Ok{});
        });
        QSignalSpy finished(&job, &BackgroundJob::finished);
        entered.acquire();
        job.cancel();
        proceed.release();
        QVERIFY(finished.wait(kTimeoutMs));
        const auto outcome = finished.at(0).at(0).value<JobOutcome>();
        QVERIFY(outcome.isCancelled());
        QCOMPARE(outcome.message(), QStringLiteral("cancelled"));
    }

    void emptyJobStillEndsOnce()
    {
        BackgroundJob job(0, [](int, const std::atomic<bool>&) -> gguf::Status { return gguf::Ok{}; });
        QSignalSpy finished(&job, &BackgroundJob::finished);
        QVERIFY(finished.wait(kTimeoutMs));
        QCoreApplication::processEvents();
        QCOMPARE(finished.count(), 1);
        QVERIFY(finished.at(0).at(0).value<JobOutcome>().isDone());
    }

    // The older request's job finishes last (it is held until the newer one has ended), yet only
    // the newer end reaches the owner; the older job was cancelled by renew().
    void newerRequestMakesOlderEndStale()
    {
        QObject owner;
        JobTracker tracker;
        QSemaphore olderEntered;
        QSemaphore releaseOlder;
        QList<int> delivered;

        tracker.renew();
        auto* older = new BackgroundJob(1, [&](int, const std::atomic<bool>&) -> gguf::Status {
            olderEntered.release();
            releaseOlder.acquire();
            return gguf::Ok{};  // ignores the flag: the worst case, a result that looks fine
        }, &owner);
        QPointer<BackgroundJob> olderAlive(older);
        tracker.track(older, &owner, [&delivered](const JobOutcome&) { delivered.append(1); });
        olderEntered.acquire();

        const JobTracker::Generation newer = tracker.renew();
        QVERIFY(!tracker.isCurrent(newer - 1));
        auto* newerJob = new BackgroundJob(1, [](int, const std::atomic<bool>&) -> gguf::Status { return gguf::Ok{}; }, &owner);
        QSignalSpy newerFinished(newerJob, &BackgroundJob::finished);
        tracker.track(newerJob, &owner, [&delivered](const JobOutcome& outcome) {
            QVERIFY(outcome.isDone());
            delivered.append(2);
        });
        QVERIFY(newerFinished.wait(kTimeoutMs));
        QCOMPARE(delivered, QList<int>{2});

        QSignalSpy olderFinished(older, &BackgroundJob::finished);
        releaseOlder.release();
        QVERIFY(olderFinished.wait(kTimeoutMs));
        QVERIFY(olderFinished.at(0).at(0).value<JobOutcome>().isCancelled());
        QTRY_VERIFY_WITH_TIMEOUT(!olderAlive, kTimeoutMs);  // deleted even though stale
        QCOMPARE(delivered, QList<int>{2});
        QVERIFY(!tracker.isRunning());
    }

    void progressOfAStaleJobIsDropped()
    {
        QObject owner;
        JobTracker tracker;
        QSemaphore gate;
        tracker.renew();
        auto* job = new BackgroundJob(2, [&gate](int, const std::atomic<bool>&) -> gguf::Status {
            gate.acquire();
            return gguf::Ok{};
        }, &owner);
        int progressCalls = 0;
        tracker.onProgress(job, &owner, [&progressCalls]() { ++progressCalls; });
        tracker.track(job, &owner, [](const JobOutcome&) {});
        QSignalSpy finished(job, &BackgroundJob::finished);
        tracker.renew();
        gate.release(2);
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(progressCalls, 0);
    }

    void partialResultsTakeEachSlotOnce()
    {
        PartialResults<int> results(4);
        results.publish(2, 20);
        QList<std::pair<std::size_t, int>> taken;
        auto take = [&taken](std::size_t slot, int value) { taken.append({slot, value}); };
        QCOMPARE(results.takeNew(take), std::size_t{1});
        results.publish(0, 0);
        results.publish(3, 30);
        QCOMPARE(results.takeNew(take), std::size_t{2});
        QCOMPARE(results.takeNew(take), std::size_t{0});
        const QList<std::pair<std::size_t, int>> expected{{2, 20}, {0, 0}, {3, 30}};
        QCOMPARE(taken, expected);
    }

    void runnerHandsBackTheValue()
    {
        QObject owner;
        JobRunner runner(&owner);
        std::optional<std::vector<int>> delivered;
        int stops = 0;
        runner.run([](const JobControl&) -> gguf::Result<std::vector<int>> { return std::vector<int>{1, 2, 3}; },
                   [&delivered](std::vector<int> values) { delivered = std::move(values); }, [&stops](const JobOutcome&) { ++stops; });
        QTRY_VERIFY_WITH_TIMEOUT(delivered.has_value(), kTimeoutMs);
        QCOMPARE(*delivered, (std::vector<int>{1, 2, 3}));
        QCOMPARE(stops, 0);
        QVERIFY(!runner.isRunning());
    }

    void runnerChunksComeBackInChunkOrder()
    {
        QObject owner;
        JobRunner runner(&owner);
        std::optional<std::vector<int>> delivered;
        runner.runChunks(8, [](int chunk, const JobControl&) -> gguf::Result<int> { return chunk * 10; },
                         [&delivered](std::vector<int> values) { delivered = std::move(values); });
        QTRY_VERIFY_WITH_TIMEOUT(delivered.has_value(), kTimeoutMs);
        QCOMPARE(*delivered, (std::vector<int>{0, 10, 20, 30, 40, 50, 60, 70}));
    }

    // The older request's work ends last and ignores its cancel flag (the worst case: a value
    // that looks fine), yet only the newer value reaches the owner.
    void runnerDropsTheStaleValue()
    {
        QObject owner;
        JobRunner runner(&owner);
        QSemaphore olderEntered;
        QSemaphore releaseOlder;
        QList<int> delivered;
        QList<JobOutcome::Kind> stops;
        QPointer<BackgroundJob> older = runner.run(
            [&](const JobControl&) -> gguf::Result<int> {
                olderEntered.release();
                releaseOlder.acquire();
                return 1;
            },
            [&delivered](int value) { delivered.append(value); }, [&stops](const JobOutcome& outcome) { stops.append(outcome.kind()); });
        olderEntered.acquire();
        runner.run([](const JobControl&) -> gguf::Result<int> { return 2; }, [&delivered](int value) { delivered.append(value); },
                   [&stops](const JobOutcome& outcome) { stops.append(outcome.kind()); });
        QTRY_COMPARE_WITH_TIMEOUT(delivered, QList<int>{2}, kTimeoutMs);
        releaseOlder.release();
        QTRY_VERIFY_WITH_TIMEOUT(!older, kTimeoutMs);  // ended and deleted, unheard
        QCOMPARE(delivered, QList<int>{2});
        QVERIFY(stops.isEmpty());
    }

    void runnerCancelEndsInOnStop()
    {
        QObject owner;
        JobRunner runner(&owner);
        QSemaphore entered;
        QSemaphore proceed;
        int values = 0;
        std::optional<JobOutcome> stopped;
        runner.run(
            [&](const JobControl& control) -> gguf::Result<int> {
                entered.release();
                proceed.acquire();
                if (control.isCancelled())
                    return gguf::Error{"stopped", gguf::Error::kNoOffset, {}};
                return 7;
            },
            [&values](int) { ++values; }, [&stopped](const JobOutcome& outcome) { stopped = outcome; });
        entered.acquire();
        QVERIFY(runner.isRunning());
        runner.cancel();
        proceed.release();
        QTRY_VERIFY_WITH_TIMEOUT(stopped.has_value(), kTimeoutMs);
        QVERIFY(stopped->isCancelled());
        QCOMPARE(values, 0);
        QVERIFY(!runner.isRunning());
    }

    // Progress reported from the pool thread arrives on the GUI thread before the value, the
    // last report last.
    void runnerReportsWorkProgress()
    {
        QObject owner;
        JobRunner runner(&owner);
        QList<QPair<quint64, quint64>> seen;
        bool done = false;
        BackgroundJob* job = runner.run(
            [](const JobControl& control) -> gguf::Result<int> {
                for (std::uint64_t i = 1; i <= 3; ++i)
                    control.setProgress(i, 3);
                return 0;
            },
            [&done](int) { done = true; });
        runner.onWorkProgress(job, [&seen](quint64 d, quint64 t) { seen.append({d, t}); });
        QTRY_VERIFY_WITH_TIMEOUT(done, kTimeoutMs);
        QVERIFY(!seen.isEmpty());
        QCOMPARE(seen.last(), (QPair<quint64, quint64>{3, 3}));
    }

    // The work reports progress after a newer request made it stale: nothing reaches the owner.
    void runnerDropsStaleProgress()
    {
        QObject owner;
        JobRunner runner(&owner);
        QSemaphore entered;
        QSemaphore gate;
        int progressCalls = 0;
        QPointer<BackgroundJob> job = runner.run(
            [&](const JobControl& control) -> gguf::Result<int> {
                entered.release();
                gate.acquire();
                control.setProgress(1, 1);
                return 0;
            },
            [](int) {});
        runner.onWorkProgress(job, [&progressCalls](quint64, quint64) { ++progressCalls; });
        entered.acquire();
        runner.renew();
        gate.release();
        // The report is queued before the job's end, so it has been handled once the job is gone.
        QTRY_VERIFY_WITH_TIMEOUT(!job, kTimeoutMs);
        QCOMPARE(progressCalls, 0);
    }

    void modelLoaderCancelEndsInCancelled()
    {
        ModelLoader loader;
        QSignalSpy opened(&loader, &ModelLoader::opened);
        QSignalSpy failed(&loader, &ModelLoader::failed);
        QSignalSpy cancelled(&loader, &ModelLoader::cancelled);
        const QString path = fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf"));
        loader.open(path);
        QVERIFY(loader.isLoading());
        loader.cancel();  // before the job can end: its end is a cancel, whatever the work did
        QVERIFY(cancelled.wait(kTimeoutMs));
        QCOMPARE(cancelled.at(0).at(0).toString(), path);
        QVERIFY(!loader.isLoading());
        QCOMPARE(opened.count(), 0);
        QCOMPARE(failed.count(), 0);
        // The loader is usable again after a cancel.
        loader.open(path);
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(opened.at(0).at(0).toString(), path);
    }

    // Every open is a file to show: a second one started before the first ended loads beside it
    // (it used to make the first stale, so of several files given at once only the last opened),
    // and a file that fails ends in its own failed() while the others open.
    void modelLoaderOpensEveryRequest()
    {
        ModelLoader loader;
        QSignalSpy opened(&loader, &ModelLoader::opened);
        QSignalSpy failed(&loader, &ModelLoader::failed);
        const QStringList paths{fixturePath(QStringLiteral("tiny-llama-F32.gguf")), fixturePath(QStringLiteral("tiny-llama-Q4_0.gguf")),
                                fixturePath(QStringLiteral("tiny-llama-F32.gguf"))};
        const QString missing = fixturePath(QStringLiteral("no-such-model.gguf"));
        for (const QString& path : paths)
            loader.open(path);
        loader.open(missing);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() == paths.size() && failed.count() == 1, kTimeoutMs);
        QStringList openedPaths;
        for (const QList<QVariant>& arguments : opened)
            openedPaths << arguments.at(0).toString();
        QStringList expected = paths;
        openedPaths.sort();
        expected.sort();
        QCOMPARE(openedPaths, expected);
        QCOMPARE(failed.at(0).at(0).toString(), missing);
        QVERIFY(!loader.isLoading());
    }

    // A second start() replaces the first run: the first is cancelled and its end never arrives
    // (it used to finish too, so the page got two results, the stale one possibly last).
    void comparisonRunRestartDropsTheOlderRun()
    {
        auto a = gguf::Model::open(fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf")).toStdString());
        auto b = gguf::Model::open(fixturePath(QStringLiteral("tiny-llama-Q4_0.gguf")).toStdString());
        QVERIFY(a && b);
        auto comparison = gguf::ModelComparison::create({*a, *b}, {});
        QVERIFY2(comparison, comparison ? "" : comparison.error().toString().c_str());
        ComparisonRun run(std::make_shared<const gguf::ModelComparison>(std::move(comparison.value())));
        QSignalSpy finished(&run, &ComparisonRun::finished);
        QSignalSpy failed(&run, &ComparisonRun::failed);
        run.start();
        run.start();
        QVERIFY(finished.wait(kTimeoutMs));
        watchThatNothingHappens();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!run.isRunning());
    }

    // Core work handed the job pool still finishes when every pool thread is busy: the calling
    // thread runs what no helper took.
    void jobPoolExecutorRunsEveryTaskWithThePoolBusy()
    {
        PoolHeldBusy busy;
        const int threads = busy.threads();
        std::vector<std::atomic<int>> runs(100);
        JobPoolExecutor::instance().run(runs.size(), [&runs](std::size_t task) { ++runs[task]; });
        QVERIFY(busy.release());
        for (const std::atomic<int>& count : runs)
            QCOMPARE(count.load(), 1);
        QCOMPARE(JobPoolExecutor::instance().threadCount(), static_cast<unsigned>(threads));
    }

    // An interactive request goes ahead of a background sweep's queued chunks: a token search
    // waited 40 s behind 130 similarity jobs. The pool is held busy while both queue, so the order
    // they start in is the pool's choice alone; the search starts before most of the sweep's
    // chunks (threads freed at the same moment take sweep chunks while it starts: a loose bound).
    void interactiveJobsGoAheadOfBackgroundOnes()
    {
        PoolHeldBusy busy;
        QObject owner;
        constexpr int kSweepChunks = 200;
        std::atomic<int> sweepRan{0};
        JobRunner sweep(&owner, JobPriority::Background);
        bool sweepDone = false;
        sweep.runChunks(
            kSweepChunks, [&sweepRan](int, const JobControl&) -> gguf::Result<int> { return ++sweepRan; },
            [&sweepDone](std::vector<int>) { sweepDone = true; });
        std::atomic<int> ranBeforeSearch{-1};
        JobRunner search(&owner, JobPriority::Interactive);
        std::optional<int> found;
        search.run([&sweepRan, &ranBeforeSearch](const JobControl&) -> gguf::Result<int> {
            ranBeforeSearch = sweepRan.load();
            return 42;
        }, [&found](int value) { found = value; });
        busy.letGo();
        QTRY_VERIFY_WITH_TIMEOUT(found.has_value() && sweepDone, kTimeoutMs);
        QCOMPARE(*found, 42);
        QVERIFY2(ranBeforeSearch.load() < kSweepChunks / 2, qPrintable(QString::number(ranBeforeSearch.load())));
        QCOMPARE(sweepRan.load(), kSweepChunks);
    }

    // ExpertScan is a job owner, not a widget: it announces each job so that a view may show it.
    void expertScanAnnouncesItsJobs()
    {
        auto opened = gguf::Model::open(fixturePath(QStringLiteral("tiny-moe-Q2_K.gguf")).toStdString());
        QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
        std::shared_ptr<const gguf::Model> model = *opened;
        const gguf::TensorInfo* experts = nullptr;
        for (const gguf::TensorInfo& tensor : model->tensors())
            if (tensor.ne[2] > 1 && !experts)
                experts = &tensor;
        QVERIFY(experts);
        ExpertScan scan;
        QSignalSpy started(&scan, &ExpertScan::jobStarted);
        QSignalSpy statistics(&scan, &ExpertScan::statisticsReady);
        QSignalSpy finished(&scan, &ExpertScan::finished);
        scan.start(model, experts, {0});
        QCOMPARE(started.count(), static_cast<int>(experts->ne[2]));
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(statistics.count(), static_cast<int>(experts->ne[2]));
    }

    // Text from the file is shown, never interpreted: the tensor table gives a name's control
    // characters as their escapes.
    void tensorNamesAreShownEscaped()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("names.gguf")).toStdString();
        const std::string written = writeSmallModel(path, {}, {{std::string("blk.0.\x1b]0;pwned\x07" "attn\nq\r.weight"), {4}}});
        QVERIFY2(written.empty(), written.c_str());
        auto opened = gguf::Model::open(path);
        QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
        TensorTableModel table;
        table.setModel(*opened);
        QCOMPARE(table.rowCount(), 1);
        const QString shown = table.index(0, TensorTableModel::Name).data().toString();
        QCOMPARE(shown, QStringLiteral("blk.0.\\x1b]0;pwned\\x07attn\\nq\\r.weight"));
        for (const QChar c : shown)
            QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7f, qPrintable(shown));
    }
};

QTEST_GUILESS_MAIN(TestSessionJobs)
#include "tst_session_jobs.moc"
