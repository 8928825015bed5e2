// A model rewritten in place while a command reads it: same size, same inode, as
// `dd conv=notrunc` does. Every command that reads tensor data must notice when it is done and
// fail with "the file changed on disk" instead of exporting a mix of both files or reporting the
// new bytes as damage. The writer here really runs concurrently: the CLI is held in the middle of
// its output by a full pipe, the file is rewritten, then the CLI is let go.

#include "CliRunner.h"
#include "Fixtures.h"
#include "core/gguf/Model.h"
#include "SmallModels.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace testsupport;

namespace {

// Overwrites `length` bytes at `offset` with 0x7F (NaN-looking floats), keeping the size.
bool rewriteInPlace(const QString& path, qint64 offset, qint64 length)
{
    const int fd = ::open(path.toLocal8Bit().constData(), O_WRONLY);
    if (fd < 0)
        return false;
    const QByteArray bytes(length, '\x7f');
    const bool ok = ::pwrite(fd, bytes.constData(), static_cast<size_t>(bytes.size()), offset) == bytes.size();
    ::close(fd);
    return ok;
}

// Rewrites as above until the file's change time differs from `before`'s: a rewrite within the
// clock tick of the last change leaves both times as they were, and then nothing could notice
// it. This waits for that tick by writing again, not by sleeping a guessed stretch.
bool rewriteNoticeably(const QString& path, qint64 offset, qint64 length, const struct stat& before)
{
    for (int attempt = 0; attempt < 1000000; ++attempt) {
        if (!rewriteInPlace(path, offset, length))
            return false;
        struct stat now {};
        if (::stat(path.toLocal8Bit().constData(), &now) != 0)
            return false;
        if (now.st_ctim.tv_sec != before.st_ctim.tv_sec || now.st_ctim.tv_nsec != before.st_ctim.tv_nsec)
            return true;
    }
    return false;
}

// The file's status as the CLI sees it when it opens the file (nothing changes it in between).
struct stat statusOf(const QString& path)
{
    struct stat info {};
    ::stat(path.toLocal8Bit().constData(), &info);
    return info;
}

struct HeldRun {
    CliRun run;
    bool wasHeld = false;  // the CLI had started its output and was blocked when the file changed
};

// Starts the CLI with a 4 KiB stdout pipe, waits for its first output (the model is open and
// being read), rewrites the file from a second thread while the CLI is blocked on the full pipe,
// then reads everything.
HeldRun runWhileRewriting(const QStringList& arguments, const QString& file, qint64 offset, qint64 length)
{
    QProcess process;
    process.setChildProcessModifier([] { ::fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 4096); });
    const struct stat opened = statusOf(file);
    process.start(cliPath(), arguments);
    HeldRun held;
    if (!process.waitForStarted(10000))
        return held;
    process.closeWriteChannel();
    QByteArray out;
    if (process.waitForReadyRead(60000)) {
        out += process.readAllStandardOutput();
        held.wasHeld = process.state() == QProcess::Running;
        bool rewritten = false;
        std::thread writer([&] { rewritten = rewriteNoticeably(file, offset, length, opened); });
        writer.join();
        held.wasHeld = held.wasHeld && rewritten;
    }
    held.run.finished = process.waitForFinished(120000);
    if (!held.run.finished) {
        process.kill();
        process.waitForFinished();
    }
    held.run.crashed = process.exitStatus() == QProcess::CrashExit;
    held.run.exitCode = process.exitCode();
    held.run.out = out + process.readAllStandardOutput();
    held.run.err = process.readAllStandardError();
    return held;
}

}  // namespace

class TestRewriteInPlace : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void exportNoticesTheRewrite();
    void exportToFileKeepsNoMixedOutput();
    void checkReportsTheChangeNotDamage();
    void convertNoticesTheRewrite();
    void unchangedFilePasses();
    void restoredMtimeIsStillNoticed();
};

void TestRewriteInPlace::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
}

void TestRewriteInPlace::exportNoticesTheRewrite()
{
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("model.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-F32.gguf")), copy));
    const auto model = gguf::Model::open(copy.toStdString());
    QVERIFY(model);
    const gguf::TensorInfo* tensor = model.value()->findTensor("token_embd.weight");  // 512 KiB of f32
    QVERIFY(tensor);
    // The second half of the tensor: the CLI has not read it yet when it first blocks.
    const qint64 offset = static_cast<qint64>(tensor->fileOffset + tensor->nbytes / 2);
    const HeldRun held = runWhileRewriting({QStringLiteral("export"), copy, QStringLiteral("token_embd.weight")}, copy, offset, 65536);
    QVERIFY2(held.wasHeld, qPrintable(held.run.describe()));
    QVERIFY2(held.run.failedWithOneLine(), qPrintable(held.run.describe()));
    QVERIFY2(held.run.err.contains("the file changed on disk"), qPrintable(held.run.describe()));
}

void TestRewriteInPlace::exportToFileKeepsNoMixedOutput()
{
    // A file output cannot be held by a pipe, so a child `dd conv=notrunc` keeps rewriting the
    // tensor in place while exports run: every one must notice, and none may leave its output
    // (or a temp file) behind.
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("model.gguf"));
    const QString output = dir.filePath(QStringLiteral("out.f32"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-F32.gguf")), copy));
    const auto model = gguf::Model::open(copy.toStdString());
    QVERIFY(model);
    const gguf::TensorInfo* tensor = model.value()->findTensor("token_embd.weight");
    QVERIFY(tensor);
    QProcess dd;
    dd.start(QStringLiteral("/bin/sh"),
             {QStringLiteral("-c"),
              QStringLiteral("while :; do dd if=/dev/urandom of=\"$0\" bs=4096 count=16 seek=$1 conv=notrunc status=none; done"), copy,
              QString::number(tensor->fileOffset / 4096 + 8)});
    QVERIFY(dd.waitForStarted());
    // Until one export overlaps a write: an export can fall between two dd runs, so how many
    // attempts that takes depends on the machine; bounded so a CLI that never notices fails.
    int changedRuns = 0;
    for (int attempt = 0; attempt < 400 && changedRuns < 3; ++attempt) {
        QFile::remove(output);
        const CliRun run = runCli({QStringLiteral("export"), copy, QStringLiteral("token_embd.weight"), QStringLiteral("-o"), output});
        QVERIFY2(run.finished && !run.crashed, qPrintable(run.describe()));
        if (run.exitCode == 0)
            continue;  // the writer happened to be idle for this whole export
        ++changedRuns;
        QVERIFY2(run.failedWithOneLine() && run.err.contains("changed"), qPrintable(run.describe()));
        const QStringList left = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
        if (left != QStringList{QStringLiteral("model.gguf")}) {
            dd.kill();
            dd.waitForFinished();
            QFAIL(qPrintable(QStringLiteral("left behind: ") + left.join(QLatin1Char(' ')) + QStringLiteral("; ") + run.describe()));
        }
    }
    dd.kill();
    dd.waitForFinished();
    QVERIFY2(changedRuns > 0, "no export noticed a file rewritten continuously in place");
}

void TestRewriteInPlace::checkReportsTheChangeNotDamage()
{
    // 400 tensors: `check` prints a line per tensor, more than the 4 KiB pipe holds.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("many.gguf")).toStdString();
    std::vector<SmallTensor> tensors;
    for (int i = 0; i < 400; ++i)
        tensors.push_back({"tensor." + std::to_string(i), {1024}});
    const std::string written = writeSmallModel(path, {}, tensors);
    QVERIFY2(written.empty(), written.c_str());
    const QString file = QString::fromStdString(path);
    const CliRun clean = runCli({QStringLiteral("check"), file});
    QVERIFY2(clean.exitCode == 0, qPrintable(clean.describe()));

    const auto model = gguf::Model::open(path);
    QVERIFY(model);
    const gguf::TensorInfo& last = model.value()->tensors().back();
    const HeldRun held = runWhileRewriting({QStringLiteral("check"), file}, file, static_cast<qint64>(last.fileOffset), 4096);
    QVERIFY2(held.wasHeld, qPrintable(held.run.describe()));
    QVERIFY2(held.run.failedWithOneLine(), qPrintable(held.run.describe()));
    QVERIFY2(held.run.exitCode == 1 && held.run.err.contains("the file changed on disk"), qPrintable(held.run.describe()));
    QVERIFY2(!held.run.out.contains("checked 400 tensors"), "the summary line was printed for a file that changed");
}

void TestRewriteInPlace::convertNoticesTheRewrite()
{
    // `convert` into a FIFO: once its first bytes arrive the model is open and being read, and
    // the writer blocks on the full FIFO while the file is rewritten.
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("model.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-F32.gguf")), copy));
    const QString fifo = dir.filePath(QStringLiteral("out.gguf"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
    QVERIFY(reader >= 0);
    const auto model = gguf::Model::open(copy.toStdString());
    QVERIFY(model);
    const gguf::TensorInfo& last = model.value()->tensors().back();

    const struct stat opened = statusOf(copy);
    QProcess process;
    process.start(cliPath(), {QStringLiteral("convert"), copy, fifo, QStringLiteral("--type"), QStringLiteral("q8_0"), QStringLiteral("--quiet")});
    QVERIFY(process.waitForStarted());
    // poll() returns once convert has written (a FIFO reports no end before a writer opened it),
    // or, should it fail first, when it closes its end; the hang guard bounds a CLI that does neither.
    char buffer[65536];
    qint64 received = 0;
    pollfd ready{reader, POLLIN, 0};
    if (::poll(&ready, 1, kHangGuardMs) > 0) {
        const ssize_t got = ::read(reader, buffer, sizeof buffer);
        received = got > 0 ? got : 0;
    }
    QVERIFY2(received > 0 && process.state() == QProcess::Running, "convert wrote nothing into the FIFO");
    bool rewritten = false;
    std::thread writer([&] { rewritten = rewriteNoticeably(copy, static_cast<qint64>(last.fileOffset), 4096, opened); });
    writer.join();
    QVERIFY(rewritten);
    // The rest, until convert closes the FIFO (its exit does).
    while (::poll(&ready, 1, kHangGuardMs) > 0) {
        const ssize_t got = ::read(reader, buffer, sizeof buffer);
        if (got <= 0)
            break;
        received += got;
    }
    ::close(reader);
    process.waitForFinished();
    const QByteArray err = process.readAllStandardError();
    QVERIFY2(process.exitCode() == 1 && err.contains("the file changed on disk"), err.constData());
}

void TestRewriteInPlace::unchangedFilePasses()
{
    const gguf::Status status = gguf::Model::open(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")).toStdString()).value()->checkUnchanged();
    QVERIFY2(status, status ? "" : status.error().message.c_str());
}

void TestRewriteInPlace::restoredMtimeIsStillNoticed()
{
    // A rewrite that puts the old mtime back (`touch -r`): only ctime shows it.
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("model.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), copy));
    const auto model = gguf::Model::open(copy.toStdString());
    QVERIFY(model);
    struct stat before {};
    QCOMPARE(::stat(copy.toLocal8Bit().constData(), &before), 0);
    QVERIFY(rewriteNoticeably(copy, 100000, 16, before));
    const timespec times[2] = {before.st_atim, before.st_mtim};
    QCOMPARE(::utimensat(AT_FDCWD, copy.toLocal8Bit().constData(), times, 0), 0);
    const gguf::Status status = model.value()->checkUnchanged();
    QVERIFY2(!status, "a rewrite with the mtime restored went unnoticed");
    QVERIFY2(QString::fromStdString(status.error().message).contains(QLatin1String("the file changed on disk")), status.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestRewriteInPlace)
#include "tst_rewrite_in_place.moc"
