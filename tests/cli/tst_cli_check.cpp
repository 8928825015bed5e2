// `gguf-explorer-cli check` run as a process: exit 0 and one "<sha256>  <name>" line per tensor
// for clean files, exit 3 with the damaged blocks at their byte offsets for damaged copies, the
// same findings in --json, and one-line failures (exit 1 or 2) for bad input and usage.

#include "CliRunner.h"
#include "DamagedCopy.h"
#include "Fixtures.h"
#include "core/gguf/Model.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

class TestCliCheck : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanFileExitsZeroWithOneHashPerTensor();
    void damagedCopyExitsThreeAndNamesTheBlocks();
    void jsonCarriesTheSameFindings();
    void maxScaleOptionMovesTheThreshold();
    void failuresAreOneLine_data();
    void failuresAreOneLine();

private:
    QTemporaryDir m_dir;
    QString m_damaged;
};

void TestCliCheck::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    QVERIFY(m_dir.isValid());
    m_damaged = m_dir.filePath(QStringLiteral("damaged.gguf"));
    const QString written = writeDamagedCopy(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), m_damaged, tinyLlamaQ4KInjections());
    QVERIFY2(written.isEmpty(), qPrintable(written));
}

void TestCliCheck::cleanFileExitsZeroWithOneHashPerTensor()
{
    const QString path = fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
    const CliRun run = runCli({QStringLiteral("check"), path});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY(model);
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    QCOMPARE(lines.size(), qsizetype((*model)->tensors().size()) + 1);  // plus the summary
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    for (std::size_t i = 0; i < (*model)->tensors().size(); ++i) {
        const gguf::TensorInfo& tensor = (*model)->tensors()[i];
        QVERIFY(file.seek(qint64(tensor.fileOffset)));
        const QByteArray hash = QCryptographicHash::hash(file.read(qint64(tensor.nbytes)), QCryptographicHash::Sha256).toHex();
        const QByteArray expected = hash + "  " + QByteArray(tensor.name.data(), qsizetype(tensor.name.size())) + "  ";
        QVERIFY2(lines[qsizetype(i)].startsWith(expected), lines[qsizetype(i)].constData());
        QVERIFY2(lines[qsizetype(i)].endsWith("  ok"), lines[qsizetype(i)].constData());
    }
    QVERIFY(lines.last().contains("0 damaged blocks"));
}

void TestCliCheck::damagedCopyExitsThreeAndNamesTheBlocks()
{
    const CliRun run = runCli({QStringLiteral("check"), m_damaged});
    QVERIFY2(run.finished && !run.crashed, qPrintable(run.describe()));
    QCOMPARE(run.exitCode, 3);
    const auto model = gguf::Model::open(m_damaged.toStdString());
    QVERIFY(model);
    for (const Injection& injection : tinyLlamaQ4KInjections()) {
        const gguf::TensorInfo* tensor = (*model)->findTensor(injection.tensor.toStdString());
        const std::uint64_t offset = tensor->fileOffset + injection.block * tensor->traits->blockBytes;
        const QByteArray line = QStringLiteral("    block %1 at byte %2: %3 = ").arg(injection.block).arg(offset).arg(injection.field).toUtf8();
        QVERIFY2(run.out.contains(line), line.constData());
    }
    QVERIFY(run.out.contains("blk.0.attn_q.weight  q4_K  DAMAGED: 3 of 256 blocks"));
    QVERIFY(run.out.contains("6 damaged blocks in 3 tensors"));
}

void TestCliCheck::jsonCarriesTheSameFindings()
{
    const CliRun run = runCli({QStringLiteral("check"), m_damaged, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 3);
    QJsonParseError error;
    const QJsonObject root = QJsonDocument::fromJson(run.out, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(root.value(QStringLiteral("damaged_blocks")).toInteger(), qint64(tinyLlamaQ4KInjections().size()));
    QCOMPARE(root.value(QStringLiteral("clean")).toBool(true), false);
    QStringList found;
    for (const QJsonValue& tensor : root.value(QStringLiteral("tensors")).toArray()) {
        QCOMPARE(tensor[QStringLiteral("sha256")].toString().size(), 64);
        for (const QJsonValue& block : tensor[QStringLiteral("damage")].toArray())
            found << QStringLiteral("%1 %2 %3 %4").arg(tensor[QStringLiteral("name")].toString()).arg(block[QStringLiteral("block")].toInteger())
                         .arg(block[QStringLiteral("offset")].toInteger()).arg(block[QStringLiteral("field")].toString());
    }
    const auto model = gguf::Model::open(m_damaged.toStdString());
    QStringList expected;
    for (const Injection& injection : tinyLlamaQ4KInjections()) {
        const gguf::TensorInfo* tensor = (*model)->findTensor(injection.tensor.toStdString());
        expected << QStringLiteral("%1 %2 %3 %4").arg(injection.tensor).arg(injection.block)
                        .arg(tensor->fileOffset + injection.block * tensor->traits->blockBytes).arg(injection.field);
    }
    found.sort();
    expected.sort();
    QCOMPARE(found, expected);
}

void TestCliCheck::maxScaleOptionMovesTheThreshold()
{
    const QString path = m_dir.filePath(QStringLiteral("absurd-only.gguf"));
    QVERIFY(writeDamagedCopy(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), path, {tinyLlamaQ4KInjections()[2]}).isEmpty());
    QCOMPARE(runCli({QStringLiteral("check"), path}).exitCode, 3);
    QCOMPARE(runCli({QStringLiteral("check"), path, QStringLiteral("--max-scale"), QStringLiteral("1e7")}).exitCode, 0);
}

void TestCliCheck::failuresAreOneLine_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("bad file") << QStringList{QStringLiteral("check"), fixturePath(QStringLiteral("bad/offset_past_eof.gguf"))} << 1;
    QTest::newRow("missing file") << QStringList{QStringLiteral("check"), QStringLiteral("/nonexistent/x.gguf")} << 1;
    QTest::newRow("no file") << QStringList{QStringLiteral("check")} << 2;
    QTest::newRow("bad max-scale") << QStringList{QStringLiteral("check"), fixturePath(QStringLiteral("v1.gguf")), QStringLiteral("--max-scale"),
                                                  QStringLiteral("-3")} << 2;
}

void TestCliCheck::failuresAreOneLine()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    const CliRun run = runCli(arguments);
    QVERIFY2(run.finished && !run.crashed, qPrintable(run.describe()));
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.endsWith('\n') && run.err.count('\n') == 1, qPrintable(run.describe()));
}

QTEST_GUILESS_MAIN(TestCliCheck)
#include "tst_cli_check.moc"
