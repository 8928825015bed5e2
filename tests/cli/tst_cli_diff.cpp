// `gguf-explorer-cli diff A B [--json]`: the JSON against the fixtures' manifests (which keys
// differ, which tensors keep their bytes: the f32 norms' hashes are equal in both manifests),
// the text form's sections, a model against itself, and failures as one line.

#include "CliRunner.h"
#include "Fixtures.h"
#include "core/compare/ErrorMetricTable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace testsupport;

namespace {
QJsonObject manifest(const QString& name)
{
    return QJsonDocument::fromJson(readWholeFile(fixturePath(name + ".json"))).object();
}
}  // namespace

class TestCliDiff : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(cliIsExecutable(), qPrintable(cliPath())); }
    void jsonMatchesManifests();
    void textForm();
    void modelAgainstItself();
    void splitAgainstOneFile();
    void failures();
};

void TestCliDiff::jsonMatchesManifests()
{
    const QString a = "tiny-llama-F32.gguf";
    const QString b = "tiny-llama-Q6_K.gguf";
    const CliRun run = runCli({"diff", fixturePath(a), fixturePath(b), "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QJsonParseError error;
    const QJsonObject diff = QJsonDocument::fromJson(run.out, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);

    const QJsonObject ma = manifest(a), mb = manifest(b);
    QStringList expectedKeys;
    const QJsonObject metaA = ma["metadata"].toObject(), metaB = mb["metadata"].toObject();
    for (auto it = metaA.begin(); it != metaA.end(); ++it)
        if (metaB.value(it.key()) != it.value())
            expectedKeys << it.key();
    QStringList keys;
    for (const QJsonValue& change : diff["metadata"].toArray())
        keys << change["key"].toString();
    QCOMPARE(keys, expectedKeys);

    const QJsonArray tensorsA = ma["tensors"].toArray(), tensorsB = mb["tensors"].toArray();
    const QJsonArray tensors = diff["tensors"].toArray();
    QCOMPARE(tensors.size(), tensorsA.size());
    for (int i = 0; i < tensors.size(); ++i) {
        const QJsonObject t = tensors[i].toObject();
        QCOMPARE(t["name"].toString(), tensorsA[i]["name"].toString());
        QCOMPARE(t["type_a"].toString(), tensorsA[i]["type"].toString());
        QCOMPARE(t["type_b"].toString(), tensorsB[i]["type"].toString());
        const bool sameType = tensorsA[i]["type"] == tensorsB[i]["type"];
        const bool sameValues = tensorsA[i]["sha256_f32"] == tensorsB[i]["sha256_f32"];
        const QString expected = sameType && sameValues ? "identical_bytes" : sameValues ? "identical_values" : "different";
        QCOMPARE(t["content"].toString(), expected);
        if (expected == "different")
            QVERIFY(t["metrics"]["rmse"].toDouble() > 0);
    }
    // Layers 0 and 1, then the tensors outside them (null).
    const QJsonArray layers = diff["layers"].toArray();
    QCOMPARE(layers.size(), 3);
    QCOMPARE(layers[0]["layer"].toInt(), 0);
    QCOMPARE(layers[1]["layer"].toInt(), 1);
    QVERIFY(layers[2]["layer"].isNull());
    QCOMPARE(layers[0]["tensors"].toInt(), 9);
    QCOMPARE(layers[0]["identical_bytes"].toInt(), 2);  // the two norms
    QCOMPARE(diff["identical"].toBool(), false);
}

void TestCliDiff::textForm()
{
    const CliRun run = runCli({"diff", fixturePath("tiny-llama-Q4_K.gguf"), fixturePath("tiny-llama-Q8_0.gguf")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    const QString text = QString::fromUtf8(run.out);
    QVERIFY(text.contains("metadata: 0 added, 0 removed, 1 changed"));
    QVERIFY(text.contains("~ general.file_type  u32"));
    QVERIFY(text.contains("tensors: 0 added, 0 removed, 0 with another shape, 21 in both: 5 identical bytes, 0 identical values, 16 different"));
    QVERIFY(text.contains("= blk.0.attn_q.weight  q4_K -> q8_0  different  rmse"));
    QVERIFY(text.contains("per layer:"));
    // The figures are the metric table's CLI columns, the ones compare prints, in its order.
    const QStringList lines = text.split(QLatin1Char('\n'));
    QString tensorLine, layerHeader;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        if (lines[i].contains(QLatin1String("= blk.0.attn_q.weight")))
            tensorLine = lines[i];
        if (lines[i] == QLatin1String("per layer:"))
            layerHeader = lines[i + 1];
    }
    qsizetype previous = -1, previousInHeader = -1;
    for (const gguf::ErrorMetricInfo& metric : gguf::errorMetricTable()) {
        if (!metric.cliHeader)
            continue;
        const qsizetype at = tensorLine.indexOf(QLatin1String("  ") + QLatin1String(metric.cliHeader) + QLatin1Char(' '));
        const qsizetype inHeader = layerHeader.indexOf(QLatin1Char(' ') + QLatin1String(metric.cliHeader));
        QVERIFY2(at > previous, qPrintable(QLatin1String(metric.cliHeader) + QLatin1String(" in ") + tensorLine));
        QVERIFY2(inHeader > previousInHeader, qPrintable(QLatin1String(metric.cliHeader) + QLatin1String(" in ") + layerHeader));
        previous = at;
        previousInHeader = inHeader;
    }
}

void TestCliDiff::modelAgainstItself()
{
    const CliRun run = runCli({"diff", fixturePath("be.gguf"), fixturePath("be.gguf")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(run.out.contains("the models are identical"));
}

void TestCliDiff::splitAgainstOneFile()
{
    const CliRun run = runCli({"diff", fixturePath("tiny-llama-Q4_K.gguf"), fixturePath("split-00002-of-00002.gguf"), "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    const QJsonObject diff = QJsonDocument::fromJson(run.out).object();
    for (const QJsonValue& t : diff["tensors"].toArray())
        QCOMPARE(t["content"].toString(), QString("identical_bytes"));
    QCOMPARE(diff["metadata"].toArray().size(), 3);  // the split keys, added
}

void TestCliDiff::failures()
{
    const CliRun missing = runCli({"diff", fixturePath("be.gguf"), "/no/such/file.gguf"});
    QVERIFY2(missing.failedWithOneLine(), qPrintable(missing.describe()));
    const CliRun usage = runCli({"diff", fixturePath("be.gguf")});
    QVERIFY(usage.failedWithOneLine());
    QCOMPARE(usage.exitCode, 2);
    const CliRun bad = runCli({"diff", fixturePath("be.gguf"), fixturePath("bad/") + QDir(fixturePath("bad")).entryList({"*.gguf"}).value(0)});
    QVERIFY2(bad.failedWithOneLine(), qPrintable(bad.describe()));
}

QTEST_GUILESS_MAIN(TestCliDiff)
#include "tst_cli_diff.moc"
