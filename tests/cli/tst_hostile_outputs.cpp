// Output paths that are not plain files: devices, FIFOs and /dev/stdout are written
// into, never replaced by a renamed temp file; a symlink is followed and its target replaced; a
// folder or a non-regular target is never replaced; a failed write names the target.

#include "core/write/ByteSink.h"
#include "CliRunner.h"
#include "Fixtures.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

using namespace testsupport;

namespace {
const QString kTensor = QStringLiteral("output_norm.weight");  // 256 f32 values: 1,024 bytes
constexpr qint64 kTensorBytes = 1024;

QString model()
{
    return fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
}

CliRun exportTo(const QString& output)
{
    return runCli({QStringLiteral("export"), model(), kTensor, QStringLiteral("-o"), output});
}

mode_t lstatMode(const QString& path)
{
    struct stat info {};
    return ::lstat(path.toLocal8Bit().constData(), &info) == 0 ? info.st_mode : 0;
}

// What `export` prints to a pipe: the reference bytes.
QByteArray expectedBytes()
{
    const CliRun run = runCli({QStringLiteral("export"), model(), kTensor});
    return run.exitCode == 0 ? run.out : QByteArray();
}
}  // namespace

class TestHostileOutputs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void symlinkToCharacterDeviceIsWrittenThrough();
    void characterDeviceIsWrittenInto();
    void fifoIsWrittenInto();
    void symlinkToFileReplacesTheTarget();
    void danglingSymlinkCreatesTheTarget();
    void procSelfFdIsWrittenInto();
    void symlinkToDevStdoutIsWrittenThrough();
    void folderIsRefused();
    void atomicSinkRefusesNonRegularTargets();
    void failedWriteNamesTheTarget();
};

void TestHostileOutputs::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
}

void TestHostileOutputs::symlinkToCharacterDeviceIsWrittenThrough()
{
    QTemporaryDir dir;
    const QString link = dir.filePath(QStringLiteral("null"));
    QVERIFY(QFile::link(QStringLiteral("/dev/null"), link));
    const CliRun run = exportTo(link);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(S_ISLNK(lstatMode(link)), "the symlink to /dev/null was replaced");
    QVERIFY(S_ISCHR(lstatMode(QStringLiteral("/dev/null"))));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{QStringLiteral("null")});
}

void TestHostileOutputs::characterDeviceIsWrittenInto()
{
    QTemporaryDir dir;
    const QString device = dir.filePath(QStringLiteral("zero"));
    if (::mknod(device.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 5)) != 0)
        QSKIP("cannot create a device node here (needs CAP_MKNOD)");
    const CliRun run = exportTo(device);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(S_ISCHR(lstatMode(device)), "the character device became something else");
}

void TestHostileOutputs::fifoIsWrittenInto()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("out.fifo"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    // The reader opens without blocking, then waits in poll() for the writer's bytes until the
    // end of the file: a FIFO reports its end (POLLHUP) only once a writer has opened and closed
    // it, which the CLI's exit does. Should the CLI never open it, the test opens and closes a
    // writer itself after the run, so the reader always ends.
    const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
    QVERIFY(reader >= 0);
    QByteArray received;
    std::thread drain([&] {
        char buffer[4096];
        pollfd ready{reader, POLLIN, 0};
        while (::poll(&ready, 1, kHangGuardMs) > 0) {
            const ssize_t got = ::read(reader, buffer, sizeof buffer);
            if (got <= 0)
                break;
            received.append(buffer, got);
        }
    });
    const CliRun run = exportTo(fifo);
    if (const int writer = ::open(fifo.toLocal8Bit().constData(), O_WRONLY | O_NONBLOCK); writer >= 0)
        ::close(writer);
    drain.join();
    ::close(reader);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(S_ISFIFO(lstatMode(fifo)), "the FIFO was replaced by a regular file");
    QCOMPARE(received.size(), kTensorBytes);
    QCOMPARE(received, expectedBytes());
}

void TestHostileOutputs::symlinkToFileReplacesTheTarget()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("target.f32"));
    const QString link = dir.filePath(QStringLiteral("link.f32"));
    QFile old(target);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old contents") > 0);
    old.close();
    QVERIFY(QFile::link(QStringLiteral("target.f32"), link));  // relative, as `ln -s` makes them
    const CliRun run = exportTo(link);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(S_ISLNK(lstatMode(link)), "the symlink was replaced instead of written through");
    QFile written(target);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll(), expectedBytes());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).size(), 2);
}

void TestHostileOutputs::danglingSymlinkCreatesTheTarget()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub")));
    const QString link = dir.filePath(QStringLiteral("link.f32"));
    QVERIFY(QFile::link(QStringLiteral("sub/new.f32"), link));
    const CliRun run = exportTo(link);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(S_ISLNK(lstatMode(link)));
    QCOMPARE(QFileInfo(dir.filePath(QStringLiteral("sub/new.f32"))).size(), kTensorBytes);
}

void TestHostileOutputs::procSelfFdIsWrittenInto()
{
    const CliRun run = exportTo(QStringLiteral("/proc/self/fd/1"));
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QCOMPARE(run.out, expectedBytes());
}

void TestHostileOutputs::symlinkToDevStdoutIsWrittenThrough()
{
    // A link of our own to /dev/stdout: the old code renamed its temp file over the link (and,
    // given /dev/stdout itself as root, over the system's /dev/stdout).
    QTemporaryDir dir;
    const QString link = dir.filePath(QStringLiteral("stdout"));
    QVERIFY(QFile::link(QStringLiteral("/dev/stdout"), link));
    const CliRun run = exportTo(link);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(S_ISLNK(lstatMode(link)));
    QCOMPARE(run.out, expectedBytes());
    // Not `-o /dev/stdout` itself: should this regress, a suite run as root would replace the
    // system's /dev/stdout. /dev/fd/1 goes the same way (a copy of descriptor 1) and is harmless.
    const CliRun direct = exportTo(QStringLiteral("/dev/fd/1"));
    QVERIFY2(direct.exitCode == 0, qPrintable(direct.describe()));
    QCOMPARE(direct.out, expectedBytes());
}

void TestHostileOutputs::folderIsRefused()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("folder"));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder")));
    const CliRun run = exportTo(folder);
    QVERIFY2(run.failedWithOneLine() && run.err.contains("folder"), qPrintable(run.describe()));
    QVERIFY(S_ISDIR(lstatMode(folder)));
}

void TestHostileOutputs::atomicSinkRefusesNonRegularTargets()
{
    // The GUI's exports go through AtomicFileSink directly: it must refuse, never replace.
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("f"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    const QString link = dir.filePath(QStringLiteral("null"));
    QVERIFY(QFile::link(QStringLiteral("/dev/null"), link));
    for (const QString& path : {fifo, link}) {
        const auto sink = gguf::AtomicFileSink::create(path.toStdString());
        QVERIFY2(!sink, qPrintable(path));
        QVERIFY2(QString::fromStdString(sink.error().message).contains(QLatin1String("refusing to replace it")), sink.error().message.c_str());
    }
    QVERIFY(S_ISFIFO(lstatMode(fifo)));
    QVERIFY(S_ISLNK(lstatMode(link)));
}

void TestHostileOutputs::failedWriteNamesTheTarget()
{
    // A file size limit makes the write fail (EFBIG) the way a full disk does (ENOSPC).
    QTemporaryDir dir;
    const QString output = dir.filePath(QStringLiteral("out.f32"));
    const CliRun run = runProgram(QStringLiteral("/bin/bash"),
                                  {QStringLiteral("-c"), QStringLiteral("ulimit -f 64 && trap '' XFSZ && exec \"$0\" export \"$1\" token_embd.weight -o \"$2\""),
                                   cliPath(), model(), output});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains(output.toUtf8() + ": write failed: File too large"), qPrintable(run.describe()));
    QVERIFY2(!run.err.contains("/.out.f32."), qPrintable(run.describe()));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
}

QTEST_GUILESS_MAIN(TestHostileOutputs)
#include "tst_hostile_outputs.moc"
