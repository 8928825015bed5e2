// Inputs that are not what they seem: a FIFO where a model or a shard should be must be
// refused at once, not waited on; names that differ only after a NUL are one name to ggml;
// FUGG on a little-endian file says so; split keys must agree whichever shard was opened; a
// shard that cannot be opened is not reported as missing.

#include "CliRunner.h"
#include "Fixtures.h"
#include "core/gguf/GgufFile.h"
#include "core/gguf/Model.h"
#include "SmallModels.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace testsupport;

namespace {

std::string path(const QTemporaryDir& dir, const char* name)
{
    return dir.filePath(QString::fromUtf8(name)).toStdString();
}

using Keys = std::vector<std::pair<std::string, gguf::EncodedValue>>;

Keys shardKeys(gguf::EncodedValue count, std::uint16_t number, std::uint64_t tensors)
{
    return {{"general.architecture", gguf::EncodedValue::string("llama")},
            {"split.no", gguf::EncodedValue::u16(number)},
            {"split.count", std::move(count)},
            {"split.tensors.count", gguf::EncodedValue::i32(static_cast<std::int32_t>(tensors))}};
}

}  // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT

private slots:
    void fifoIsRefusedByTheCoreWithoutBlocking();
    void fifoIsRefusedByTheCli();
    void fifoShardIsRefused();
    void namesEqualUpToNulAreDuplicates_data();
    void namesEqualUpToNulAreDuplicates();
    void aNulInOneNameIsAcceptedAsGgmlDoes();
    void fuggMagicWithLittleEndianVersion();
    void invalidSplitCountIsAnError_data();
    void invalidSplitCountIsAnError();
    void verdictDoesNotDependOnTheShardOpened();
    void tooManyOpenFilesIsNotMissing();
    void permissionDeniedIsNotMissing();
    void nothingComparedNamesTheOtherShapes();
};

void TestHostileInputs::fifoIsRefusedByTheCoreWithoutBlocking()
{
    QTemporaryDir dir;
    const std::string fifo = path(dir, "model.gguf");
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    // Opened on a thread: if open() blocks, the test opens the FIFO's other end to release it
    // and then fails, instead of hanging the suite.
    std::atomic<int> outcome{0};  // 0 running, 1 refused, 2 accepted
    std::string message;
    std::promise<void> opened;
    std::thread opener([&] {
        const auto file = gguf::GgufFile::open(fifo);
        message = file ? std::string() : file.error().toString();
        outcome = file ? 2 : 1;
        opened.set_value();
    });
    const bool blocked = opened.get_future().wait_for(std::chrono::milliseconds(kHangGuardMs)) != std::future_status::ready;
    if (blocked) {
        const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (writer >= 0)
            ::close(writer);
    }
    opener.join();
    QVERIFY2(!blocked, "GgufFile::open blocked on a FIFO");
    QCOMPARE(outcome.load(), 1);
    QVERIFY2(QString::fromStdString(message).contains(QLatin1String("not a regular file (a FIFO)")), message.c_str());
}

void TestHostileInputs::fifoIsRefusedByTheCli()
{
    QTemporaryDir dir;
    const std::string fifo = path(dir, "x.gguf");
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    for (const char* command : {"info", "meta", "tensors", "check"}) {
        const CliRun run = runCli({QString::fromLatin1(command), QString::fromStdString(fifo)});
        QVERIFY2(run.finished, qPrintable(QStringLiteral("%1 still blocked on a FIFO after the hang guard").arg(QLatin1String(command))));
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("not a regular file (a FIFO)"), qPrintable(run.describe()));
    }
}

void TestHostileInputs::fifoShardIsRefused()
{
    QTemporaryDir dir;
    const QString first = dir.filePath(QStringLiteral("split-00001-of-00002.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("split-00001-of-00002.gguf")), first));
    const std::string second = path(dir, "split-00002-of-00002.gguf");
    QCOMPARE(::mkfifo(second.c_str(), 0600), 0);
    const CliRun run = runCli({QStringLiteral("info"), first});
    QVERIFY2(run.finished, "info still blocked on a FIFO shard after 10 s");
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("shard 2 of 2") && run.err.contains("a FIFO"), qPrintable(run.describe()));
    QVERIFY2(!run.err.contains("missing"), qPrintable(run.describe()));
}

void TestHostileInputs::namesEqualUpToNulAreDuplicates_data()
{
    QTest::addColumn<QByteArray>("first");
    QTest::addColumn<QByteArray>("second");
    QTest::addColumn<bool>("asKeys");
    QTest::newRow("tensor, NUL at the end") << QByteArray("a.f32") << QByteArray("a.f32\0", 6) << false;
    QTest::newRow("tensor, different after NUL") << QByteArray("a\0x", 3) << QByteArray("a\0y", 3) << false;
    QTest::newRow("key, NUL at the end") << QByteArray("test.key") << QByteArray("test.key\0", 9) << true;
    QTest::newRow("key, different after NUL") << QByteArray("test\0one", 8) << QByteArray("test\0two", 8) << true;
}

void TestHostileInputs::namesEqualUpToNulAreDuplicates()
{
    QFETCH(QByteArray, first);
    QFETCH(QByteArray, second);
    QFETCH(bool, asKeys);
    QTemporaryDir dir;
    const std::string file = path(dir, "nul.gguf");
    const std::string a = first.toStdString();
    const std::string b = second.toStdString();
    Keys keys;
    std::vector<SmallTensor> tensors{{"t", {32}}};
    if (asKeys) {
        keys.emplace_back(a, gguf::EncodedValue::u32(1));
        keys.emplace_back(b, gguf::EncodedValue::u32(2));
    } else {
        tensors = {{a, {32}}, {b, {32}}};
    }
    const std::string written = writeSmallModel(file, keys, tensors);
    QVERIFY2(written.empty(), written.c_str());
    const auto opened = gguf::GgufFile::open(file);
    QVERIFY2(!opened, "two names that ggml reads as one were both accepted");
    const QString message = QString::fromStdString(opened.error().toString());
    QVERIFY2(message.contains(asKeys ? QLatin1String("duplicate metadata key") : QLatin1String("duplicate tensor name")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("NUL")) && message.contains(QLatin1String("\\x00")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("(at byte ")), qPrintable(message));
    QVERIFY2(!message.contains(QChar(0)), "the message carries the raw NUL");
}

void TestHostileInputs::aNulInOneNameIsAcceptedAsGgmlDoes()
{
    QTemporaryDir dir;
    const std::string file = path(dir, "one-nul.gguf");
    const std::string written = writeSmallModel(file, {}, {{std::string("a\0b", 3), {32}}, {"a.b", {32}}});
    QVERIFY2(written.empty(), written.c_str());
    const auto opened = gguf::GgufFile::open(file);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    QCOMPARE(opened.value()->tensors().size(), std::size_t(2));
}

void TestHostileInputs::fuggMagicWithLittleEndianVersion()
{
    QFile source(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QByteArray bytes = source.readAll();
    bytes.replace(0, 4, "FUGG");
    QTemporaryDir dir;
    QFile copy(dir.filePath(QStringLiteral("fugg.gguf")));
    QVERIFY(copy.open(QIODevice::WriteOnly) && copy.write(bytes) == bytes.size());
    copy.close();
    const auto opened = gguf::GgufFile::open(copy.fileName().toStdString());
    QVERIFY(!opened);
    const QString message = QString::fromStdString(opened.error().message);
    QVERIFY2(message.contains(QLatin1String("big-endian")) && message.contains(QLatin1String("little-endian"))
                 && message.contains(QLatin1String("reads 3")), qPrintable(message));
}

void TestHostileInputs::invalidSplitCountIsAnError_data()
{
    QTest::addColumn<int>("kind");  // which split.count shard 1 carries
    QTest::addColumn<QString>("expected");
    QTest::newRow("0") << 0 << QStringLiteral("'split.count' is 0");
    QTest::newRow("1") << 1 << QStringLiteral("split.count is 1 but the file name says 2");
    QTest::newRow("missing") << 2 << QStringLiteral("has no key 'split.count'");
    QTest::newRow("string") << 3 << QStringLiteral("'split.count' is of type str");
    QTest::newRow("-2") << 4 << QStringLiteral("'split.count' is -2");
}

void TestHostileInputs::invalidSplitCountIsAnError()
{
    QFETCH(int, kind);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::vector<SmallTensor> firstTensors{{"a", {32}}, {"b", {32}}};
    Keys keys = shardKeys(gguf::EncodedValue::u16(2), 0, 3);
    if (kind == 2)
        keys.erase(keys.begin() + 2);
    else
        keys[2].second = kind == 0 ? gguf::EncodedValue::u16(0) : kind == 1 ? gguf::EncodedValue::u16(1)
                       : kind == 3 ? gguf::EncodedValue::string("2") : gguf::EncodedValue::i32(-2);
    const std::string first = path(dir, "x-00001-of-00002.gguf");
    std::string written = writeSmallModel(first, keys, firstTensors);
    written += writeSmallModel(path(dir, "x-00002-of-00002.gguf"), shardKeys(gguf::EncodedValue::u16(2), 1, 3), {{"c", {32}}});
    QVERIFY2(written.empty(), written.c_str());
    const auto model = gguf::Model::open(first);
    QVERIFY2(!model, qPrintable(QStringLiteral("opened as %1 tensors").arg(model ? model.value()->tensors().size() : 0)));
    const QString message = QString::fromStdString(model.error().toString());
    QVERIFY2(message.contains(expected), qPrintable(message));
}

void TestHostileInputs::verdictDoesNotDependOnTheShardOpened()
{
    QTemporaryDir dir;
    std::string written = writeSmallModel(path(dir, "x-00001-of-00002.gguf"), shardKeys(gguf::EncodedValue::u16(2), 0, 2), {{"a", {32}}});
    written += writeSmallModel(path(dir, "x-00002-of-00002.gguf"), shardKeys(gguf::EncodedValue::u16(3), 1, 2), {{"b", {32}}});
    QVERIFY2(written.empty(), written.c_str());
    const auto viaFirst = gguf::Model::open(path(dir, "x-00001-of-00002.gguf"));
    const auto viaSecond = gguf::Model::open(path(dir, "x-00002-of-00002.gguf"));
    QVERIFY2(!viaFirst, "opening via shard 1 accepted a set that shard 2 contradicts");
    QVERIFY(!viaSecond);
    QVERIFY2(QString::fromStdString(viaFirst.error().toString()).contains(QLatin1String("split.count is 3")),
             viaFirst.error().toString().c_str());

    // Consistent keys open the same model from either shard.
    written = writeSmallModel(path(dir, "x-00002-of-00002.gguf"), shardKeys(gguf::EncodedValue::u16(2), 1, 2), {{"b", {32}}});
    QVERIFY2(written.empty(), written.c_str());
    for (const char* name : {"x-00001-of-00002.gguf", "x-00002-of-00002.gguf"}) {
        const auto model = gguf::Model::open(path(dir, name));
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QCOMPARE(model.value()->tensors().size(), std::size_t(2));
    }
}

void TestHostileInputs::tooManyOpenFilesIsNotMissing()
{
    QTemporaryDir dir;
    constexpr int kShards = 40;
    for (int k = 1; k <= kShards; ++k) {
        char name[64];
        std::snprintf(name, sizeof name, "m-%05d-of-%05d.gguf", k, kShards);
        const std::string written = writeSmallModel(path(dir, name), shardKeys(gguf::EncodedValue::u16(kShards), static_cast<std::uint16_t>(k - 1), kShards),
                                                    {{"t" + std::to_string(k), {32}}});
        QVERIFY2(written.empty(), written.c_str());
    }
    const QString first = dir.filePath(QStringLiteral("m-00001-of-00040.gguf"));
    // The limit is lowered (soft and hard) before the CLI starts, so it cannot raise it again.
    const CliRun run = runProgram(QStringLiteral("/bin/bash"),
                                  {QStringLiteral("-c"), QStringLiteral("ulimit -n 24 && exec \"$0\" info \"$1\""), cliPath(), first});
#ifdef GGUFX_SANITIZED
    // UBSan's vptr check probes memory through a pipe, which it cannot create once every
    // descriptor is in use, and then reports a false "invalid vptr" as the failed open unwinds.
    // The dev build checks the message; here only that the CLI did not crash on its own.
    if (run.err.contains("object has invalid vptr") && run.err.contains("memory cannot be printed"))
        QSKIP("UBSan cannot check vptrs without a free descriptor; the message is checked in the dev build");
#endif
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("cannot be opened") && run.err.contains("Too many open files") && run.err.contains("ulimit -n"),
             qPrintable(run.describe()));
    QVERIFY2(!run.err.contains("missing"), qPrintable(run.describe()));
    // With the usual limit the same model opens.
    const CliRun normal = runCli({QStringLiteral("info"), first});
    QVERIFY2(normal.exitCode == 0 && normal.out.contains("(40 shards)"), qPrintable(normal.describe()));
}

void TestHostileInputs::permissionDeniedIsNotMissing()
{
    QTemporaryDir dir;
    const QString first = dir.filePath(QStringLiteral("split-00001-of-00002.gguf"));
    const QString second = dir.filePath(QStringLiteral("split-00002-of-00002.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("split-00001-of-00002.gguf")), first));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("split-00002-of-00002.gguf")), second));
    QCOMPARE(::chmod(second.toLocal8Bit().constData(), 0), 0);
    QCOMPARE(::chmod(first.toLocal8Bit().constData(), 0644), 0);
    QCOMPARE(::chmod(dir.path().toLocal8Bit().constData(), 0755), 0);
    // Root reads anything: run the CLI as nobody then.
    const bool root = ::geteuid() == 0;
    const CliRun run = root ? runProgram(QStringLiteral("/usr/bin/setpriv"), {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                                                                       QStringLiteral("--clear-groups"), cliPath(), QStringLiteral("info"), first})
                            : runCli({QStringLiteral("info"), first});
    if (root && !run.err.contains("split"))
        QSKIP(qPrintable(QStringLiteral("cannot run the CLI as nobody here: ") + run.describe()));
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("cannot be opened") && run.err.contains("Permission denied"), qPrintable(run.describe()));
    QVERIFY2(!run.err.contains("missing"), qPrintable(run.describe()));
}

void TestHostileInputs::nothingComparedNamesTheOtherShapes()
{
    // Same tensor name, transposed shape, no architecture: every reason must be in the message,
    // not only the first problem found (the architecture).
    QTemporaryDir dir;
    const std::string other = path(dir, "transposed.gguf");
    const std::string written = writeSmallModel(other, {}, {{"token_embd.weight", {512, 256}}});
    QVERIFY2(written.empty(), written.c_str());
    const CliRun run = runCli({QStringLiteral("compare"), fixturePath(QStringLiteral("tiny-llama-F32.gguf")), QString::fromStdString(other)});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("no tensor could be compared"), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("with the same name but another shape (first 'token_embd.weight'"), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("missing") && run.err.contains("architecture"), qPrintable(run.describe()));
}

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "tst_hostile_inputs.moc"
