// The session layer's job API without any widget (this suite links ggufsession, not ggufui, and
// runs under QCoreApplication): a BackgroundJob ends once as done, cancelled or failed, decided by
// the kind of end and never by the wording of a message; a JobTracker drops the end of a job
// that a newer request made stale, however the pool orders them; PartialResults hands out each
// published slot exactly once; ExpertScan reports its jobs by signal, with no progress widget.

#include "Fixtures.h"
#include "SmallModels.h"
#include "gguf/Model.h"
#include "session/BackgroundJob.h"
#include "session/ExpertScan.h"
#include "session/JobPool.h"
#include "session/JobTracker.h"
#include "session/PartialResults.h"
#include "session/TensorTableModel.h"

#include <QCoreApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {
constexpr int kTimeoutMs = 20000;

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
