// Runs gguf-explorer-cli as a separate process, the way scripts use it: its JSON and exported
// bytes must match the manifests, and every bad input must end in a non-zero exit with one line
// on stderr, never a crash.

#include "CliRunner.h"
#include "Fixtures.h"
#include "Manifest.h"
#include "SliceDigest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace testsupport;

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void tensorsJsonMatchesManifest();
    void tensorsFilter();
    void infoLabelsAreSeparated();
    void exportToStdoutMatchesManifest_data();
    void exportToStdoutMatchesManifest();
    void exportNpyToFile();
    void statsJsonMatchesManifest();
    void badFileFailsCleanly_data();
    void badFileFailsCleanly();
    void oddFileListsButRefusesToExport();
    void usageErrors_data();
    void usageErrors();

private:
    QString m_moe;
    std::optional<Manifest> m_moeManifest;
};

void TestCli::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    m_moe = fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf"));
    QString error;
    m_moeManifest = Manifest::load(m_moe + QStringLiteral(".json"), &error);
    QVERIFY2(m_moeManifest, qPrintable(error));
}

void TestCli::tensorsJsonMatchesManifest()
{
    const CliRun run = runCli({QStringLiteral("tensors"), m_moe, QStringLiteral("--json")});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(run.out, &parseError);
    QVERIFY2(document.isArray(), qPrintable(parseError.errorString()));
    const QJsonArray tensors = document.array();
    QCOMPARE(tensors.size(), m_moeManifest->tensors.size());
    for (qsizetype i = 0; i < tensors.size(); ++i) {
        const QJsonObject actual = tensors[i].toObject();
        const ManifestTensor& expected = m_moeManifest->tensors[i];
        QCOMPARE(actual.value(QLatin1String("name")).toString(), expected.name);
        QCOMPARE(actual.value(QLatin1String("type")).toString(), expected.type);
        QCOMPARE(actual.value(QLatin1String("type_id")).toInteger(-1), qint64(expected.typeId));
        QList<std::int64_t> ne;
        for (const QJsonValue dim : actual.value(QLatin1String("ne")).toArray())
            ne << dim.toInteger(-1);
        QCOMPARE(ne, expected.ne);
        QCOMPARE(actual.value(QLatin1String("offset")).toInteger(-1), qint64(expected.offset));
        QCOMPARE(actual.value(QLatin1String("nbytes")).toInteger(-1), qint64(expected.nbytes));
    }
}

// Every line of `info` is "label: value" with the values in one column: a label as long as
// the column ("embedding_length:256") used to run into its value.
void TestCli::infoLabelsAreSeparated()
{
    for (const QString& model : {m_moe, fixturePath(QStringLiteral("tiny-llama-F32.gguf"))}) {
        const CliRun run = runCli({QStringLiteral("info"), model});
        QCOMPARE(run.exitCode, 0);
        int checked = 0;
        for (const QByteArray& line : run.out.split('\n')) {
            if (line.isEmpty() || line.startsWith(' ') || line.endsWith(':'))
                continue;  // the per-type table and its heading
            const int colon = line.indexOf(':');
            int value = colon + 1;
            while (value < line.size() && line[value] == ' ')
                ++value;
            QVERIFY2(colon > 0 && value > colon + 1 && value == std::max(17, colon + 2), line.constData());
            ++checked;
        }
        QVERIFY(checked >= 12);
        QVERIFY2(run.out.contains("\nembedding_length: "), run.out.constData());
    }
}

void TestCli::tensorsFilter()
{
    const CliRun run = runCli({QStringLiteral("tensors"), m_moe, QStringLiteral("--json"), QStringLiteral("--filter"), QStringLiteral("ffn_.*_exps")});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    const QJsonArray tensors = QJsonDocument::fromJson(run.out).array();
    QCOMPARE(tensors.size(), 6);  // gate, up and down experts of two layers
    for (const QJsonValue tensor : tensors)
        QVERIFY(tensor.toObject().value(QLatin1String("name")).toString().endsWith(QLatin1String("_exps.weight")));
}

void TestCli::exportToStdoutMatchesManifest_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<int>("expert");  // -1: the whole tensor
    QTest::addColumn<QString>("manifest");
    QTest::newRow("q4_K tensor") << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("blk.0.attn_q.weight") << -1
                                 << QStringLiteral("tiny-moe-Q4_K.gguf.json");
    QTest::newRow("expert 3") << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("blk.0.ffn_up_exps.weight") << 3
                              << QStringLiteral("tiny-moe-Q4_K.gguf.json");
    QTest::newRow("last expert") << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("blk.1.ffn_down_exps.weight") << 7
                                 << QStringLiteral("tiny-moe-Q4_K.gguf.json");
    // A tensor of shard 2, asked for through shard 1: the split model acts as one file.
    QTest::newRow("split, shard 2") << QStringLiteral("split-00001-of-00002.gguf") << QStringLiteral("output.weight") << -1
                                    << QStringLiteral("tiny-llama-Q4_K.gguf.json");
    QTest::newRow("big-endian") << QStringLiteral("be.gguf") << QStringLiteral("be.q6_K") << -1 << QStringLiteral("be.gguf.json");
}

void TestCli::exportToStdoutMatchesManifest()
{
    QFETCH(QString, file);
    QFETCH(QString, tensor);
    QFETCH(int, expert);
    QFETCH(QString, manifest);
    QString error;
    const auto expected = Manifest::load(fixturePath(manifest), &error);
    QVERIFY2(expected, qPrintable(error));
    const ManifestTensor* expectedTensor = expected->findTensor(tensor);
    QVERIFY(expectedTensor);
    QByteArray expectedSha256 = expectedTensor->sha256;
    QStringList arguments{QStringLiteral("export"), fixturePath(file), tensor, QStringLiteral("--format"), QStringLiteral("f32"),
                          QStringLiteral("-o"), QStringLiteral("-")};
    if (expert >= 0) {
        QVERIFY(expert < expectedTensor->experts.size());
        expectedSha256 = expectedTensor->experts[expert].sha256;
        arguments << QStringLiteral("--expert") << QString::number(expert);
    }
    const CliRun run = runCli(arguments);
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    QCOMPARE(sha256Hex(run.out), expectedSha256);
}

void TestCli::exportNpyToFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("expert3.npy"));
    const CliRun run = runCli({QStringLiteral("export"), m_moe, QStringLiteral("blk.0.ffn_up_exps.weight"), QStringLiteral("--expert"),
                               QStringLiteral("3"), QStringLiteral("--format"), QStringLiteral("npy"), QStringLiteral("-o"), path});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(run.out.isEmpty());  // the data went to the file
    const QByteArray bytes = readWholeFile(path);
    QVERIFY(bytes.startsWith("\x93NUMPY"));
    const int headerLength = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    QVERIFY(bytes.mid(10, headerLength).contains("'shape': (512, 256)"));
    QCOMPARE(sha256Hex(bytes.mid(10 + headerLength)), m_moeManifest->findTensor(QStringLiteral("blk.0.ffn_up_exps.weight"))->experts[3].sha256);
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{QStringLiteral("expert3.npy")});
}

void TestCli::statsJsonMatchesManifest()
{
    const ManifestTensor* expected = m_moeManifest->findTensor(QStringLiteral("blk.1.ffn_gate_exps.weight"));
    QVERIFY(expected && expected->experts.size() == 8);
    const CliRun run = runCli({QStringLiteral("stats"), m_moe, QStringLiteral("blk.1.ffn_gate_exps.weight"), QStringLiteral("--expert"),
                               QStringLiteral("5"), QStringLiteral("--json")});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    const QJsonObject stats = QJsonDocument::fromJson(run.out).object();
    QVERIFY2(!stats.isEmpty(), run.out.constData());
    QCOMPARE(stats.value(QLatin1String("count")).toInteger(), qint64(256 * 512));
    // Printed as text, the numbers need only round-trip closely; exactness is tst_manifests' job.
    const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::abs(b); };
    QVERIFY(close(stats.value(QLatin1String("mean")).toDouble(), expected->experts[5].mean));
    QVERIFY(close(stats.value(QLatin1String("rms")).toDouble(), expected->experts[5].rms));
}

void TestCli::badFileFailsCleanly_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("path");
    const QStringList names = fixtureNames(QStringLiteral("bad"), QStringLiteral("*.gguf"));
    QVERIFY2(!names.isEmpty(), qPrintable(QStringLiteral("no fixtures in ") + fixturePath(QStringLiteral("bad"))));
    for (const QString& name : names) {
        const QString path = fixturePath(QStringLiteral("bad/") + name);
        QTest::newRow(qPrintable(QStringLiteral("info ") + name)) << QStringLiteral("info") << path;
        QTest::newRow(qPrintable(QStringLiteral("tensors ") + name)) << QStringLiteral("tensors") << path;
    }
}

void TestCli::badFileFailsCleanly()
{
    QFETCH(QString, command);
    QFETCH(QString, path);
    const CliRun run = runCli({command, path});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    // The line names the file, so a script's log says which input was bad.
    QVERIFY2(run.err.contains(QFileInfo(path).fileName().toUtf8()), run.err.constData());
}

void TestCli::oddFileListsButRefusesToExport()
{
    const QString path = fixturePath(QStringLiteral("odd/unknown_tensor_type_250.gguf"));
    const CliRun listed = runCli({QStringLiteral("tensors"), path, QStringLiteral("--json")});
    QVERIFY2(listed.finished && !listed.crashed && listed.exitCode == 0, qPrintable(listed.describe()));
    QVERIFY(QJsonDocument::fromJson(listed.out).array().at(1).toObject().value(QLatin1String("type")).toString() == QLatin1String("unknown type 250"));
    const CliRun exported = runCli({QStringLiteral("export"), path, QStringLiteral("b.q4_K"), QStringLiteral("-o"), QStringLiteral("-")});
    QVERIFY2(exported.failedWithOneLine(), qPrintable(exported.describe()));
    QVERIFY2(exported.err.contains("unknown type 250"), exported.err.constData());
}

void TestCli::usageErrors_data()
{
    const QString moe = fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf"));
    const QString tensor = QStringLiteral("blk.0.ffn_up_exps.weight");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("named");  // what the one stderr line must mention, if anything
    QTest::newRow("no arguments") << QStringList{} << QString();
    QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate"), moe} << QStringLiteral("frobnicate");
    QTest::newRow("export without tensor") << QStringList{QStringLiteral("export"), moe} << QString();
    QTest::newRow("stats without tensor") << QStringList{QStringLiteral("stats"), moe} << QString();
    QTest::newRow("no such tensor") << QStringList{QStringLiteral("export"), moe, QStringLiteral("no.such.tensor"), QStringLiteral("-o"), QStringLiteral("-")}
                                    << QStringLiteral("no.such.tensor");
    QTest::newRow("no such file") << QStringList{QStringLiteral("info"), moe + QStringLiteral(".missing")} << QStringLiteral("tiny-moe-Q4_K.gguf.missing");
    QTest::newRow("expert out of range") << QStringList{QStringLiteral("export"), moe, tensor, QStringLiteral("--expert"), QStringLiteral("8"), QStringLiteral("-o"), QStringLiteral("-")}
                                         << QString();
    QTest::newRow("negative expert") << QStringList{QStringLiteral("stats"), moe, tensor, QStringLiteral("--expert"), QStringLiteral("-1")} << QString();
    QTest::newRow("expert of a 2-D tensor") << QStringList{QStringLiteral("stats"), moe, QStringLiteral("token_embd.weight"), QStringLiteral("--expert"), QStringLiteral("0")}
                                            << QStringLiteral("token_embd.weight");
    QTest::newRow("unknown format") << QStringList{QStringLiteral("export"), moe, tensor, QStringLiteral("--format"), QStringLiteral("xml"), QStringLiteral("-o"), QStringLiteral("-")}
                                    << QStringLiteral("xml");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("tensors"), moe, QStringLiteral("--frobnicate")} << QStringLiteral("--frobnicate");
    QTest::newRow("option without value") << QStringList{QStringLiteral("tensors"), moe, QStringLiteral("--filter")} << QStringLiteral("--filter");
    QTest::newRow("bad regex") << QStringList{QStringLiteral("tensors"), moe, QStringLiteral("--filter"), QStringLiteral("(")} << QString();
}

void TestCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, named);
    const CliRun run = runCli(arguments);
    // With no arguments at all the usage text is the message, so only that case may be longer.
    if (arguments.isEmpty()) {
        QVERIFY2(run.finished && !run.crashed && run.exitCode != 0 && !run.err.isEmpty(), qPrintable(run.describe()));
        return;
    }
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY(run.out.isEmpty());
    if (!named.isEmpty())
        QVERIFY2(QString::fromUtf8(run.err).contains(named), run.err.constData());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
