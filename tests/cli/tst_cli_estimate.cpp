// gguf-explorer-cli estimate: llama.cpp's flags (--ctx, --kv, --flash-attn, --batch, --ubatch,
// --swa-full 0|1, --ngl) and the command-line tools' defaults, the JSON figures (kv_cpu_bytes,
// kv_gpu_bytes, recurrent_bytes, compute_buffer_bytes, kv_exact), and a one-line error, exit 2,
// for every value out of range (a context of 2^64 - 1 is refused, not read as 2^63 - 1).

#include "CliRunner.h"
#include "Fixtures.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace testsupport;

namespace {
QString archModel(const QString& folder)
{
    return fixturePath("llama.cpp/arch/" + folder + "/" + folder + "-F32.gguf");
}

QJsonObject estimateJson(const QStringList& arguments)
{
    const CliRun run = runCli(QStringList{"estimate"} + arguments + QStringList{"--json"});
    if (!run.finished || run.exitCode != 0) {
        qWarning("%s", qPrintable(run.describe()));
        return {};
    }
    return QJsonDocument::fromJson(run.out).object();
}
}  // namespace

class CliEstimateTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(cliIsExecutable(), qPrintable(cliPath())); }
    void defaultsAreLlamaCpps();
    void flagsReachTheEstimate();
    void recurrentStateOfHybrids();
    void badValuesAreRefused_data();
    void badValuesAreRefused();
};

void CliEstimateTest::defaultsAreLlamaCpps()
{
    // gemma3 at 4096 with the defaults: F16, flash attention on (auto), batch 2048, ubatch 512,
    // small SWA cache: llama.cpp's common-defaults log says 0.75 + 0.42 MiB of KV.
    const QJsonObject json = estimateJson({archModel("gemma3"), "--ctx", "4096"});
    QVERIFY(!json.isEmpty());
    QCOMPARE(json["kv_type_k"].toString(), QStringLiteral("f16"));
    QCOMPARE(json["batch"].toInt(), 2048);
    QCOMPARE(json["ubatch"].toInt(), 512);
    QCOMPARE(json["flash_attn"].toBool(), true);
    QCOMPARE(json["swa_full"].toBool(), false);
    QCOMPARE(json["kv_exact"].toBool(), true);
    // 1 full layer x 4096 cells + 3 SWA layers x 768 cells, 48 values of K and of V, 2 bytes.
    QCOMPARE(json["kv_cpu_bytes"].toInteger(), qint64(4096 + 3 * 768) * 48 * 2 * 2);
    QCOMPARE(json["kv_gpu_bytes"].toInteger(), qint64(0));
    QCOMPARE(json["recurrent_bytes"].toInteger(), qint64(0));
    QVERIFY(json["compute_buffer_bytes"].toInteger() > 0);
}

void CliEstimateTest::flagsReachTheEstimate()
{
    const QString model = archModel("gemma3");
    const QJsonObject small = estimateJson({model, "--ctx", "4096", "--kv", "f32", "--flash-attn", "off", "--batch", "512", "--ubatch", "512"});
    const QJsonObject full = estimateJson({model, "--ctx", "4096", "--kv", "f32", "--flash-attn", "off", "--swa-full", "1"});
    const QJsonObject fa = estimateJson({model, "--ctx", "4096", "--kv", "f32", "--flash-attn", "on", "--swa-full", "1"});
    QVERIFY(!small.isEmpty() && !full.isEmpty() && !fa.isEmpty());
    QCOMPARE(small["kv_cpu_bytes"].toInteger(), qint64(4096 + 3 * 768) * 48 * 2 * 4);
    QCOMPARE(full["kv_cpu_bytes"].toInteger(), qint64(4 * 4096) * 48 * 2 * 4);
    QCOMPARE(full["swa_full"].toBool(), true);
    // Without flash attention the f32 scores [4096, 512, 4 heads] dominate the compute buffer.
    QVERIFY(full["compute_buffer_bytes"].toInteger() > qint64(4096) * 512 * 4 * 4);
    QVERIFY(fa["compute_buffer_bytes"].toInteger() < qint64(4096) * 512 * 4 * 4);
    const QJsonObject gpu = estimateJson({model, "--ctx", "4096", "--ngl", "-1"});
    QCOMPARE(gpu["kv_cpu_bytes"].toInteger(), qint64(0));
    QCOMPARE(gpu["kv_gpu_bytes"].toInteger(), qint64(4096 + 3 * 768) * 48 * 2 * 2);
}

void CliEstimateTest::recurrentStateOfHybrids()
{
    // qwen35: 2 Gated DeltaNet layers, (4 - 1) x (128 + 2 x 2 x 32) conv and 32 x 128 ssm values each.
    const QJsonObject json = estimateJson({archModel("qwen35"), "--ctx", "32768"});
    QVERIFY(!json.isEmpty());
    QCOMPARE(json["recurrent_bytes"].toInteger(), qint64(2) * 4 * (3 * 256 + 32 * 128));
    QCOMPARE(json["kv_cpu_bytes"].toInteger(), qint64(2) * 32768 * 128 * 2 * 2);
}

void CliEstimateTest::badValuesAreRefused_data()
{
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("message");
    QTest::newRow("ctx 2^64-1") << QStringList{"--ctx", "18446744073709551615"} << "--ctx takes a whole number from 1 to 4294967296: 18446744073709551615 is out of range";
    QTest::newRow("ctx 2^63") << QStringList{"--ctx", "9223372036854775808"} << "is out of range";
    QTest::newRow("ctx 2^32+1") << QStringList{"--ctx", "4294967297"} << "is out of range";
    QTest::newRow("ctx 0") << QStringList{"--ctx", "0"} << "--ctx takes a whole number from 1";
    QTest::newRow("ctx text") << QStringList{"--ctx", "4k"} << "not '4k'";
    QTest::newRow("ngl -2") << QStringList{"--ngl", "-2"} << "--ngl takes a whole number from -1";
    QTest::newRow("ubatch 0") << QStringList{"--ubatch", "0"} << "--ubatch takes a whole number from 1";
    QTest::newRow("batch huge") << QStringList{"--batch", "99999999999999999999999"} << "is out of range";
    QTest::newRow("swa-full 2") << QStringList{"--swa-full", "2"} << "--swa-full takes a whole number from 0 to 1";
    QTest::newRow("flash-attn maybe") << QStringList{"--flash-attn", "maybe"} << "--flash-attn takes on, off or auto";
    QTest::newRow("kv q4_K") << QStringList{"--kv", "q4_K"} << "unknown cache type 'q4_K'";
    QTest::newRow("quantized V without flash attention") << QStringList{"--kv", "q8_0", "--flash-attn", "off"} << "needs flash attention";
}

void CliEstimateTest::badValuesAreRefused()
{
    QFETCH(QStringList, flags);
    QFETCH(QString, message);
    const CliRun run = runCli(QStringList{"estimate", archModel("llama")} + flags);
    QVERIFY2(run.finished && !run.crashed, qPrintable(run.describe()));
    QVERIFY2(run.exitCode != 0, qPrintable(run.describe()));
    QVERIFY(run.out.isEmpty());
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.contains(message) && err.count('\n') == 1, qPrintable(err));
}

QTEST_GUILESS_MAIN(CliEstimateTest)
#include "tst_cli_estimate.moc"
