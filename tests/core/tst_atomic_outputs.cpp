// Writes that end badly leave nothing half-done: a process killed while writing leaves no temp
// file (SIGKILL included), an interrupt removes a named one, a split set is committed all or
// nothing, and a set mixing the shards of two saves is refused when opened. An output one run
// rewrites again and again (a scan's file) is claimed by one run at a time, until it ends or dies.

#include "FileBytes.h"
#include "Fixtures.h"
#include "core/edit/MetadataEdits.h"
#include "core/edit/ModelSaver.h"
#include "core/gguf/Model.h"
#include "core/gguf/SplitName.h"
#include "core/write/AtomicFileSet.h"
#include "core/write/ByteSink.h"
#include "core/write/OutputLock.h"
#include "core/write/TempFileCleanup.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace testsupport;

namespace {
QStringList entriesOf(const QString& folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

// Runs `work` in a child process, which writes one byte to the pipe when it is ready and then
// waits; the parent sends `signal` once the byte has come, and returns the child's wait status.
template <class Work>
int signalledWhileReady(Work work, int signal)
{
    int ready[2];
    if (::pipe(ready) != 0)
        return -1;
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(ready[0]);
        if (!work())
            ::_exit(3);
        const char byte = 1;
        (void)!::write(ready[1], &byte, 1);
        for (;;)
            ::pause();
    }
    ::close(ready[1]);
    char byte = 0;
    const bool wasReady = ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
    if (wasReady)
        ::kill(child, signal);
    int status = 0;
    ::waitpid(child, &status, 0);
    return wasReady ? status : -1;
}
}  // namespace

class TestAtomicOutputs : public QObject {
    Q_OBJECT

private slots:
    void killedWriteLeavesNothing();
    void interruptRemovesANamedTempFile_data();
    void interruptRemovesANamedTempFile();
    void setCommitPutsTheOldSetBackWhenARenameFails();
    void setCommitReplacesEveryFile();
    void shardsOfOneSaveShareTheirId();
    void setMixingTwoSavesIsRefused();
    void outputLockIsExclusiveAndDiesWithItsHolder();
};

void TestAtomicOutputs::killedWriteLeavesNothing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string target = dir.filePath(QStringLiteral("out.bin")).toStdString();
    const int status = signalledWhileReady(
        [&] {
            auto sink = gguf::AtomicFileSink::create(target);
            if (!sink)
                return false;
            static const char megabyte[1 << 20] = {};
            if (!(*sink)->write(megabyte, sizeof megabyte))
                return false;
            sink.value().release();  // the child is killed with it open
            return true;
        },
        SIGKILL);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    QCOMPARE(entriesOf(dir.path()), QStringList());
}

void TestAtomicOutputs::interruptRemovesANamedTempFile_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGINT") << SIGINT;
    QTest::newRow("SIGTERM") << SIGTERM;
    QTest::newRow("SIGHUP") << SIGHUP;
}

void TestAtomicOutputs::interruptRemovesANamedTempFile()
{
    // Where the filesystem has no unnamed files, the temp file has a name until it is renamed.
    QFETCH(int, signal);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString temp = dir.filePath(QStringLiteral(".out.bin.Xy12Ab"));
    const int status = signalledWhileReady(
        [&] {
            // Qt Test handles these signals itself; the handlers are ours only over the default
            // action (and are installed at the first name, which this suite gives here first).
            for (int each : {SIGINT, SIGTERM, SIGHUP})
                std::signal(each, SIG_DFL);
            if (!writeFile(temp, "partial"))
                return false;
            return gguf::rememberTempFile(temp.toStdString()) >= 0;
        },
        signal);
    // The process still ends as the signal says, so its parent sees the same status.
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == signal, qPrintable(QString::number(status)));
    QCOMPARE(entriesOf(dir.path()), QStringList());
}

void TestAtomicOutputs::setCommitPutsTheOldSetBackWhenARenameFails()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("set-00001-of-00003.gguf"));
    const QString second = dir.filePath(QStringLiteral("set-00002-of-00003.gguf"));
    const QString third = dir.filePath(QStringLiteral("set-00003-of-00003.gguf"));  // new in this save
    QVERIFY(writeFile(first, "old one"));
    QVERIFY(writeFile(second, "old two"));
    std::vector<std::unique_ptr<gguf::AtomicFileSink>> sinks;
    for (const QString& path : {first, third, second}) {
        auto sink = gguf::AtomicFileSink::create(path.toStdString());
        QVERIFY2(sink, sink ? "" : sink.error().toString().c_str());
        QVERIFY((*sink)->write("new", 3));
        sinks.push_back(std::move(sink.value()));
    }
    // The last rename fails: its finished file is gone from under it.
    for (const auto& sink : sinks)
        QVERIFY(sink->prepare());
    QVERIFY(QFile::remove(QString::fromStdString(sinks[2]->preparedPath())));
    std::vector<gguf::AtomicFileSink*> set{sinks[0].get(), sinks[1].get(), sinks[2].get()};
    const gguf::Status committed = gguf::commitTogether(set);
    QVERIFY(!committed);
    QVERIFY2(QString::fromStdString(committed.error().toString()).contains(QStringLiteral("previous save are kept")), committed.error().toString().c_str());
    QCOMPARE(contentOf(first), QByteArray("old one"));  // put back
    QCOMPARE(contentOf(second), QByteArray("old two"));  // never replaced
    QVERIFY(!QFileInfo::exists(third));                 // had no old file: removed
    sinks.clear();
    QCOMPARE(entriesOf(dir.path()), (QStringList{QStringLiteral("set-00001-of-00003.gguf"), QStringLiteral("set-00002-of-00003.gguf")}));
}

void TestAtomicOutputs::setCommitReplacesEveryFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("a"));
    const QString second = dir.filePath(QStringLiteral("b"));
    QVERIFY(writeFile(first, "old a"));
    std::vector<std::unique_ptr<gguf::AtomicFileSink>> sinks;
    for (const QString& path : {first, second}) {
        auto sink = gguf::AtomicFileSink::create(path.toStdString());
        QVERIFY(sink);
        QVERIFY((*sink)->write(path.toUtf8().right(1).constData(), 1));
        sinks.push_back(std::move(sink.value()));
    }
    std::vector<gguf::AtomicFileSink*> set{sinks[0].get(), sinks[1].get()};
    const gguf::Status committed = gguf::commitTogether(set);
    QVERIFY2(committed, committed ? "" : committed.error().toString().c_str());
    sinks.clear();
    QCOMPARE(contentOf(first), QByteArray("a"));
    QCOMPARE(contentOf(second), QByteArray("b"));
    QCOMPARE(entriesOf(dir.path()), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));  // no backups left
}

void TestAtomicOutputs::shardsOfOneSaveShareTheirId()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto source = gguf::Model::open(fixturePath(QStringLiteral("split-00001-of-00002.gguf")).toStdString());
    QVERIFY(source);
    const auto report = gguf::saveModelAs(**source, {}, dir.filePath(QStringLiteral("copy.gguf")).toStdString());
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    const auto saved = gguf::Model::open(report->paths.back());
    QVERIFY2(saved, saved ? "" : saved.error().toString().c_str());
    std::set<std::string> ids;
    for (const auto& shard : (*saved)->shards()) {
        const gguf::MetadataEntry* id = shard->findMetadata(gguf::kSplitSaveIdKey);
        QVERIFY(id);
        ids.insert(std::string(id->value.toStringView()));
    }
    QCOMPARE(ids.size(), std::size_t{1});
    QCOMPARE(ids.begin()->size(), std::size_t{32});
}

void TestAtomicOutputs::setMixingTwoSavesIsRefused()
{
    // A save killed between its renames leaves new shard 1 beside old shard 2: both are valid
    // files, and only the save id tells that they do not belong together.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto source = gguf::Model::open(fixturePath(QStringLiteral("split-00001-of-00002.gguf")).toStdString());
    QVERIFY(source);
    for (const char* name : {"one", "two"}) {
        gguf::MetadataEdits edits;
        edits.set("general.name", gguf::EncodedValue::string(name));
        const auto report = gguf::saveModelAs(**source, edits, dir.filePath(QString::fromLatin1(name) + QStringLiteral(".gguf")).toStdString());
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
    }
    const QString mixedSecond = dir.filePath(QStringLiteral("one-00002-of-00002.gguf"));
    QVERIFY(QFile::remove(mixedSecond));
    QVERIFY(QFile::copy(dir.filePath(QStringLiteral("two-00002-of-00002.gguf")), mixedSecond));
    for (const char* shard : {"one-00001-of-00002.gguf", "one-00002-of-00002.gguf"}) {
        const auto mixed = gguf::Model::open(dir.filePath(QString::fromLatin1(shard)).toStdString());
        QVERIFY2(!mixed, shard);
        QVERIFY2(QString::fromStdString(mixed.error().toString()).contains(QStringLiteral("mixes the files of two saves")), mixed.error().toString().c_str());
    }
    QVERIFY(gguf::Model::open(dir.filePath(QStringLiteral("two-00001-of-00002.gguf")).toStdString()));
}

// Held, the claim refuses a second one (in this process too: flock is per open file); released,
// its file is gone; a holder killed by SIGKILL leaves the file but not the lock.
void TestAtomicOutputs::outputLockIsExclusiveAndDiesWithItsHolder()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string target = dir.filePath(QStringLiteral("scan.json")).toStdString();
    {
        auto first = gguf::OutputLock::acquire(target);
        QVERIFY2(first, first ? "" : first.error().toString().c_str());
        QCOMPARE(first->lockPath(), target + ".lock");
        auto second = gguf::OutputLock::acquire(target);
        QVERIFY(!second);
        QVERIFY2(second.error().toString().find("another process is writing this output") != std::string::npos, second.error().toString().c_str());
        QVERIFY(QFile::exists(QString::fromStdString(target + ".lock")));
    }
    QCOMPARE(entriesOf(dir.path()), QStringList());
    QVERIFY(gguf::OutputLock::acquire(target));
    QVERIFY(gguf::OutputLock::acquire("-") && gguf::OutputLock::acquire("-")->lockPath().empty());

    const int status = signalledWhileReady(
        [&] {
            auto lock = gguf::OutputLock::acquire(target);
            if (!lock)
                return false;
            new gguf::OutputLock(std::move(*lock));  // held until the child dies
            return true;
        },
        SIGKILL);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    QCOMPARE(entriesOf(dir.path()), QStringList{QStringLiteral("scan.json.lock")});
    auto after = gguf::OutputLock::acquire(target);
    QVERIFY2(after, after ? "" : after.error().toString().c_str());
}

QTEST_GUILESS_MAIN(TestAtomicOutputs)
#include "tst_atomic_outputs.moc"
