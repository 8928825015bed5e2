// `logits` and `kld` on arch fixtures with one hyper-parameter edited by `meta --set` (the
// project's own editor): a value llama.cpp refuses is refused in one line naming the key, never
// run as another network with exit code 0; a key llama.cpp does not read changes nothing; and two
// models whose MoE layouts differ are compared without touching a router that is not there.
// (tst_hyperparameters covers every key of every architecture without running the pass.)

#include "CliRunner.h"
#include "Fixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {

QString archModel(const QString& folder)
{
    return fixturePath(QStringLiteral("llama.cpp/arch/%1/%1-F32.gguf").arg(folder));
}

// `meta MODEL --set SETTING -o DIR/edited.gguf`, the copy's path (empty after a failure).
QString editedCopy(const QString& model, const QString& setting, const QTemporaryDir& dir)
{
    const QString out = dir.filePath(QStringLiteral("edited.gguf"));
    const CliRun run = runCli({QStringLiteral("meta"), model, QStringLiteral("--set"), setting, QStringLiteral("-o"), out});
    if (!run.finished || run.exitCode != 0) {
        QTest::qFail(qPrintable(run.describe()), __FILE__, __LINE__);
        return {};
    }
    return out;
}

const QString kTokens = QStringLiteral("5,9,17,33,41,2,7,60,11,23,4,19");

}  // namespace

class CliHyperparametersTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(cliIsExecutable()); }

    // The findings: each ran another network than llama.cpp's with exit code 0.
    void refusedInOneLineNamingTheKey_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("expected");
        QTest::newRow("gemma4 experts above LLAMA_MAX_EXPERTS, kld") << "gemma4" << "gemma4.expert_count=4294967295:u32" << "kld"
                                                                     << "gemma4.expert_count has type u32 (4294967295)";
        QTest::newRow("qwen35 rope dims as a string") << "qwen35" << "qwen35.rope.dimension_count=16:str" << "logits"
                                                      << "qwen35.rope.dimension_count has type string (\"16\")";
        QTest::newRow("gemma4-e per-layer input width as f32") << "gemma4-e" << "gemma4.embedding_length_per_layer_input=16:f32" << "logits"
                                                               << "gemma4.embedding_length_per_layer_input has type f32 (16)";
        QTest::newRow("gemma2 final softcap NaN") << "gemma2" << "gemma2.final_logit_softcapping=nan:f32" << "logits"
                                                  << "gemma2.final_logit_softcapping has type f32 (nan)";
    }

    void refusedInOneLineNamingTheKey()
    {
        QFETCH(QString, folder);
        QFETCH(QString, setting);
        QFETCH(QString, command);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString edited = editedCopy(archModel(folder), setting, dir);
        QVERIFY(!edited.isEmpty());
        const QStringList arguments = command == QStringLiteral("kld")
                                        ? QStringList{command, archModel(folder), edited, QStringLiteral("--tokens"), kTokens}
                                        : QStringList{command, edited, QStringLiteral("--tokens"), kTokens, QStringLiteral("-o"),
                                                      dir.filePath(QStringLiteral("logits.f32"))};
        const CliRun run = runCli(arguments);
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains(expected.toUtf8()), run.err.constData());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("logits.f32"))));
    }

    // gemma4 routes the layers that have a router and reads no leading_dense_block_count. A copy
    // claiming a leading dense layer is the same network: KLD 0 and the same routing. (The kld
    // used to count the other model's dense layer into expert -1 and abort in glibc.)
    void gemma4LeadingDenseCopyIsTheSameNetwork()
    {
        QTemporaryDir dir;
        const QString edited = editedCopy(archModel(QStringLiteral("gemma4")), QStringLiteral("gemma4.leading_dense_block_count=1:u32"), dir);
        QVERIFY(!edited.isEmpty());
        const CliRun run = runCli({QStringLiteral("kld"), archModel(QStringLiteral("gemma4")), edited, QStringLiteral("--tokens"), kTokens,
                                   QStringLiteral("--json")});
        QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject result = QJsonDocument::fromJson(run.out).object().value(QStringLiteral("models")).toArray().at(0).toObject();
        QVERIFY2(!result.isEmpty(), run.out.constData());
        QCOMPARE(result.value(QStringLiteral("kld")).toObject().value(QStringLiteral("maximum")).toDouble(), 0.0);
        QVERIFY(!result.contains(QStringLiteral("routing_note")));
        for (const auto& layer : result.value(QStringLiteral("layers")).toArray())
            QCOMPARE(layer.toObject().value(QStringLiteral("routing_changed_fraction")).toDouble(-1.0), 0.0);
    }

    // The same tensors routed to another number of experts (llama.cpp runs both): the KLD is
    // reported, the routing is not compared, and the output says why.
    void differentTopKIsReportedNotCompared()
    {
        QTemporaryDir dir;
        const QString edited = editedCopy(archModel(QStringLiteral("qwen3moe")), QStringLiteral("qwen3moe.expert_used_count=1:u32"), dir);
        QVERIFY(!edited.isEmpty());
        const CliRun run = runCli({QStringLiteral("kld"), archModel(QStringLiteral("qwen3moe")), edited, QStringLiteral("--tokens"), kTokens});
        QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.out.contains("note: routing not compared: the reference routes to 2 of 8 experts, the other model to 1 of 8"),
                 run.out.constData());
        QVERIFY(!run.out.contains("expert routing counts"));
    }
};

QTEST_GUILESS_MAIN(CliHyperparametersTest)
#include "tst_cli_hyperparameters.moc"
