// gguf-explorer-cli logits and kld as a user runs them: the files `logits` writes match
// llama.cpp's reference files (same layout, max |delta| / max |ref| < 1e-4 per row), `kld`
// prints the summary and the per-layer table and its JSON carries the same numbers, and every
// misuse is one line on stderr.

#include "CliRunner.h"
#include "core/forward/ForwardPass.h"
#include "LogitsOracle.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <QtTest>

using namespace testsupport;

namespace {
QString joinedTokens(const std::vector<std::int32_t>& tokens)
{
    QStringList parts;
    for (const auto id : tokens)
        parts << QString::number(id);
    return parts.join(QLatin1Char(','));
}
}  // namespace

class CliForwardTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(cliIsExecutable()); }

    void logitsMatchOracle_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("oracle");
        QTest::addColumn<QStringList>("extra");
        // The oracle files were made with an f32 KV cache and flash attention off; llama.cpp's
        // arithmetic (the default) is given those explicitly, --f32-activations keeps them.
        const QStringList oracleCache{QStringLiteral("--kv"), QStringLiteral("f32"), QStringLiteral("--flash-attn"), QStringLiteral("off")};
        const QString f32 = QStringLiteral("--f32-activations");
        QTest::newRow("tiny-llama-F32 P2") << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("tiny-llama-F32.P2") << oracleCache;
        QTest::newRow("tiny-moe F32 P3, f32 activations") << QStringLiteral("tiny-moe-F16.gguf") << QStringLiteral("tiny-moe-F32.P3") << QStringList{f32};
        QTest::newRow("tiny-moe F32 P3, exact sums")
            << QStringLiteral("tiny-moe-F16.gguf") << QStringLiteral("tiny-moe-F32.P3") << QStringList{f32, QStringLiteral("--exact")};
        QTest::newRow("tiny-llama-F32 P1, cblas_sgemm sums")
            << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("tiny-llama-F32.P1") << QStringList{f32, QStringLiteral("--sgemm")};
        QTest::newRow("tiny-moe F16 P1, llama.cpp's arithmetic")
            << QStringLiteral("tiny-moe-F16.gguf") << QStringLiteral("tiny-moe-F16.P1") << oracleCache;
        QTest::newRow("tiny-moe Q4_K P1, --llama-activations")
            << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("tiny-moe-Q4_K.P1") << QStringList{QStringLiteral("--llama-activations")} + oracleCache;
    }

    void logitsMatchOracle()
    {
        QFETCH(QString, model);
        QFETCH(QString, oracle);
        QFETCH(QStringList, extra);
        const auto reference = loadLogitsOracle(oracle);
        QVERIFY(reference.loaded);
        QTemporaryDir dir;
        const QString logits = dir.filePath(QStringLiteral("out.f32"));
        const QString hidden = dir.filePath(QStringLiteral("hidden.f32"));
        const auto run = runCli(QStringList{QStringLiteral("logits"), fixturePath(model), QStringLiteral("--tokens"), joinedTokens(reference.tokens),
                                            QStringLiteral("-o"), logits, QStringLiteral("--hidden"), hidden}
                                + extra);
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.out.isEmpty());
        const auto ours = readFloats(logits);
        const auto oursHidden = readFloats(hidden);
        QCOMPARE(ours.size(), reference.logits.size());
        QCOMPARE(oursHidden.size(), reference.hidden.size());
        QVERIFY(worstRowError(ours, reference.logits, static_cast<std::size_t>(reference.vocabulary)) < 1e-4);
        QVERIFY(worstRowError(oursHidden, reference.hidden, static_cast<std::size_t>(reference.embedding)) < 1e-4);
    }

    void logitsWithoutHiddenWritesOneFile()
    {
        QTemporaryDir dir;
        const QString logits = dir.filePath(QStringLiteral("out.f32"));
        const auto run = runCli({QStringLiteral("logits"), fixturePath(QStringLiteral("tiny-llama-F32.gguf")), QStringLiteral("--tokens"),
                                 QStringLiteral("1, 2,3"), QStringLiteral("-o"), logits});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QCOMPARE(QFileInfo(logits).size(), qint64{3 * 512 * 4});
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temp file left
    }

    // Text goes through the model's own tokenizer, as `tokenize` prints it: the logits of a
    // text file are the logits of the ids `tokenize` gives for it.
    void textFileIsTokenizedByTheModel()
    {
        QTemporaryDir dir;
        const QString model = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        const QString text = dir.filePath(QStringLiteral("text.txt"));
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("The quick brown fox jumps over the lazy dog.\n");
        file.close();
        const auto ids = runCli({QStringLiteral("tokenize"), model, QStringLiteral("--text-file"), text});
        QVERIFY2(ids.exitCode == 0, qPrintable(ids.describe()));
        const QString idList = QString::fromUtf8(ids.out).trimmed().replace(' ', ',');
        QVERIFY(idList.count(',') >= 5);
        const auto fromText = runCli({QStringLiteral("logits"), model, QStringLiteral("--text-file"), text, QStringLiteral("-o"), QStringLiteral("-")});
        QVERIFY2(fromText.exitCode == 0, qPrintable(fromText.describe()));
        const auto fromIds = runCli({QStringLiteral("logits"), model, QStringLiteral("--tokens"), idList, QStringLiteral("-o"), QStringLiteral("-")});
        QVERIFY2(fromIds.exitCode == 0, qPrintable(fromIds.describe()));
        QCOMPARE(fromText.out.size(), qsizetype((idList.count(',') + 1) * 512 * 4));
        QVERIFY(fromText.out == fromIds.out);
    }

    void logitsToStandardOutput()
    {
        const auto run = runCli({QStringLiteral("logits"), fixturePath(QStringLiteral("tiny-llama-F32.gguf")), QStringLiteral("--tokens"),
                                 QStringLiteral("1,2"), QStringLiteral("-o"), QStringLiteral("-")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QCOMPARE(run.out.size(), qsizetype{2 * 512 * 4});
    }

    void misuseIsOneLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        const QString model = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        QTest::newRow("no output") << QStringList{QStringLiteral("logits"), model, QStringLiteral("--tokens"), QStringLiteral("1")};
        QTest::newRow("token outside vocabulary")
            << QStringList{QStringLiteral("logits"), model, QStringLiteral("--tokens"), QStringLiteral("1,512"), QStringLiteral("-o"), QStringLiteral("/dev/null")};
        QTest::newRow("negative token")
            << QStringList{QStringLiteral("logits"), model, QStringLiteral("--tokens"), QStringLiteral("-3"), QStringLiteral("-o"), QStringLiteral("/dev/null")};
        QTest::newRow("output over input")
            << QStringList{QStringLiteral("logits"), model, QStringLiteral("--tokens"), QStringLiteral("1"), QStringLiteral("-o"), model};
        QTest::newRow("text file missing")
            << QStringList{QStringLiteral("logits"), model, QStringLiteral("--text-file"), QStringLiteral("/nonexistent/text.txt"), QStringLiteral("-o"),
                           QStringLiteral("/dev/null")};
        QTest::newRow("unsupported architecture")
            << QStringList{QStringLiteral("logits"), fixturePath(QStringLiteral("all-types.gguf")), QStringLiteral("--tokens"), QStringLiteral("1"),
                           QStringLiteral("-o"), QStringLiteral("/dev/null")};
        QTest::newRow("both activation flags")
            << QStringList{QStringLiteral("logits"), model, QStringLiteral("--tokens"), QStringLiteral("1"), QStringLiteral("-o"), QStringLiteral("/dev/null"),
                           QStringLiteral("--f32-activations"), QStringLiteral("--llama-activations")};
        QTest::newRow("kld nothing to compare") << QStringList{QStringLiteral("kld"), model, QStringLiteral("--tokens"), QStringLiteral("1,2")};
        QTest::newRow("kld bad simulate")
            << QStringList{QStringLiteral("kld"), model, QStringLiteral("--simulate"), QStringLiteral("q9_X"), QStringLiteral("--tokens"), QStringLiteral("1,2")};
        QTest::newRow("kld bad chunk") << QStringList{QStringLiteral("kld"), model, model, QStringLiteral("--chunk"), QStringLiteral("2"),
                                                      QStringLiteral("--tokens"), QStringLiteral("1,2,3,4")};
        QTest::newRow("kld base is a folder")
            << QStringList{QStringLiteral("kld"), model, model, QStringLiteral("--llama-kld-base"), fixturesDir()};
        QTest::newRow("kld not a base file")
            << QStringList{QStringLiteral("kld"), model, model, QStringLiteral("--llama-kld-base"), model};
    }

    void misuseIsOneLine()
    {
        QFETCH(QStringList, arguments);
        const auto run = runCli(arguments);
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    }

    // A dense model and an MoE one with the same vocabulary are different networks: kld refuses
    // them, naming what differs, as compare lists it, instead of reporting a drift.
    void kldRefusesUnrelatedModels_data()
    {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QString>("other");
        QTest::newRow("dense against MoE") << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("tiny-moe-F16.gguf");
        QTest::newRow("MoE against dense") << QStringLiteral("tiny-moe-F16.gguf") << QStringLiteral("tiny-llama-F32.gguf");
    }

    void kldRefusesUnrelatedModels()
    {
        QFETCH(QString, reference);
        QFETCH(QString, other);
        const auto run = runCli({QStringLiteral("kld"), fixturePath(reference), fixturePath(other), QStringLiteral("--tokens"), QStringLiteral("1,2,3,4")});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("does not fit the reference"), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("blk.0.ffn_gate"), qPrintable(run.describe()));
    }

    // A long text is split into llama-perplexity's 512-token windows by default, instead of
    // being refused for exceeding one pass; shorter texts stay one sequence.
    void kldLongTextUsesDefaultWindows()
    {
        QTemporaryDir dir;
        const QString text = dir.filePath(QStringLiteral("long.txt"));
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QByteArray words[] = {"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "model ", "tensor "};
        for (int i = 0; i < 2500; ++i)
            file.write(words[(i * 7 + i / 10) % 10]);
        file.close();
        const QString reference = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        const auto tokens = runCli({QStringLiteral("tokenize"), reference, QStringLiteral("--text-file"), text});
        QVERIFY2(tokens.exitCode == 0, qPrintable(tokens.describe()));
        const auto count = QString::fromUtf8(tokens.out).split(QLatin1Char(' '), Qt::SkipEmptyParts).size();
        QVERIFY2(count > gguf::kMaxForwardTokens, qPrintable(QString::number(count)));
        const auto run = runCli({QStringLiteral("kld"), reference, fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf")), QStringLiteral("--text-file"),
                                 text, QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(json.value(QStringLiteral("chunk_size")).toInteger(), qint64{512});
        QCOMPARE(json.value(QStringLiteral("scored_positions")).toInteger(), qint64(count / 512 * (512 - 1 - 256)));
    }

    void kldTextAndJsonAgree()
    {
        const QString reference = fixturePath(QStringLiteral("tiny-moe-F16.gguf"));
        const QString other = fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf"));
        const QString tokens = QStringLiteral("1,5,9,13,17,21,25,29,33,37,41,45");
        const auto text = runCli({QStringLiteral("kld"), reference, other, QStringLiteral("--simulate"), QStringLiteral("q8_0"), QStringLiteral("--tokens"), tokens});
        QVERIFY2(text.exitCode == 0, qPrintable(text.describe()));
        const QString out = QString::fromUtf8(text.out);
        QVERIFY(out.contains(QStringLiteral("Mean    KLD")));
        QVERIFY(out.contains(QStringLiteral("q8_0 (simulated)")));
        QVERIFY(out.contains(QStringLiteral("routing changed")));
        QCOMPARE(out.count(QStringLiteral("expert routing counts")), 2);
        const auto json = runCli({QStringLiteral("kld"), reference, other, QStringLiteral("--simulate"), QStringLiteral("q8_0"), QStringLiteral("--tokens"), tokens,
                                  QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.describe()));
        const QJsonObject root = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(root.value(QStringLiteral("scored_positions")).toInt(), 11);
        const QJsonArray models = root.value(QStringLiteral("models")).toArray();
        QCOMPARE(models.size(), 2);
        const QJsonObject first = models[0].toObject();
        const double mean = first.value(QStringLiteral("kld")).toObject().value(QStringLiteral("mean")).toDouble();
        QVERIFY(mean > 0.0);
        // The text shows the same mean, to 6 decimals.
        QVERIFY2(out.contains(QString::number(mean, 'f', 6)), qPrintable(out));
        QCOMPARE(first.value(QStringLiteral("positions")).toArray().size(), 11);
        QCOMPARE(first.value(QStringLiteral("layers")).toArray().size(), 2);
        // The simulated q8_0 drifts less than the q4_K file.
        const double simulated = models[1].toObject().value(QStringLiteral("kld")).toObject().value(QStringLiteral("mean")).toDouble();
        QVERIFY(simulated < mean);
    }
    // kld --preset PRESET [--imatrix F] quantizes the reference in memory as llama-quantize
    // would: the weights equal those of llama-quantize's own file bit for bit, so every figure
    // (per position KLD, tops, probabilities, per-layer drift, routing) equals the one measured
    // against that file; and the importance weights change them.
    void kldSimulatedPresetEqualsTheRealFile_data()
    {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QString>("real");
        QTest::addColumn<QString>("imatrix");
        QTest::newRow("tiny-llama Q4_K_M, imatrix") << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("llama.cpp/tiny-llama-imat-Q4_K_M.gguf")
                                                   << QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf");
        QTest::newRow("tiny-llama Q4_K_M, legacy imatrix") << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("llama.cpp/tiny-llama-imatdat-Q4_K_M.gguf")
                                                          << QStringLiteral("llama.cpp/tiny-llama.imatrix.dat");
        QTest::newRow("tiny-llama Q4_K_M, no imatrix") << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("llama.cpp/tiny-llama-mix-Q4_K_M.gguf")
                                                      << QString();
        QTest::newRow("tiny-llama IQ2_XXS, imatrix") << QStringLiteral("tiny-llama-F32.gguf") << QStringLiteral("llama.cpp/tiny-llama-imat-IQ2_XXS.gguf")
                                                    << QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf");
        QTest::newRow("tiny-moe Q4_K_M, imatrix") << QStringLiteral("tiny-moe-F16.gguf") << QStringLiteral("llama.cpp/tiny-moe-imat-Q4_K_M.gguf")
                                                 << QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf");
    }

    void kldSimulatedPresetEqualsTheRealFile()
    {
        QFETCH(QString, reference);
        QFETCH(QString, real);
        QFETCH(QString, imatrix);
        const QString preset = real.section(QLatin1Char('-'), -1).section(QLatin1Char('.'), 0, 0);
        const QString tokens = QStringLiteral("1,17,33,49,65,81,97,113,129,145,161,177,193,209,225,241,257,273,289,305");
        QStringList arguments{QStringLiteral("kld"), fixturePath(reference), fixturePath(real), QStringLiteral("--preset"), preset,
                              QStringLiteral("--tokens"), tokens, QStringLiteral("--json")};
        if (!imatrix.isEmpty())
            arguments << QStringLiteral("--imatrix") << fixturePath(imatrix);
        const auto run = runCli(arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QJsonArray models = QJsonDocument::fromJson(run.out).object().value(QStringLiteral("models")).toArray();
        QCOMPARE(models.size(), 2);
        QJsonObject fromFile = models[0].toObject();
        QJsonObject simulated = models[1].toObject();
        QCOMPARE(simulated.value(QStringLiteral("label")).toString(),
                 preset + (imatrix.isEmpty() ? QStringLiteral(" (simulated)") : QStringLiteral(" (simulated, imatrix)")));
        QVERIFY(fromFile.value(QStringLiteral("kld")).toObject().value(QStringLiteral("mean")).toDouble() > 0.0);
        fromFile.remove(QStringLiteral("label"));
        simulated.remove(QStringLiteral("label"));
        QCOMPARE(simulated.value(QStringLiteral("positions")).toArray(), fromFile.value(QStringLiteral("positions")).toArray());
        QCOMPARE(simulated.value(QStringLiteral("layers")).toArray(), fromFile.value(QStringLiteral("layers")).toArray());
        QCOMPARE(simulated, fromFile);

        // The other way round (with the imatrix dropped, or added) the weights differ, and so do the figures.
        if (preset == QStringLiteral("IQ2_XXS"))
            return;  // ggml cannot make IQ2_XXS without importance weights (refusal tested below)
        QStringList flipped{QStringLiteral("kld"), fixturePath(reference), fixturePath(real), QStringLiteral("--preset"), preset,
                            QStringLiteral("--tokens"), tokens, QStringLiteral("--json")};
        if (imatrix.isEmpty())
            flipped << QStringLiteral("--imatrix") << fixturePath(reference.startsWith(QStringLiteral("tiny-moe")) ? QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf")
                                                                                                                  : QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf"));
        const auto other = runCli(flipped);
        QVERIFY2(other.exitCode == 0, qPrintable(other.describe()));
        const QJsonArray otherModels = QJsonDocument::fromJson(other.out).object().value(QStringLiteral("models")).toArray();
        QCOMPARE(otherModels.size(), 2);
        QVERIFY(otherModels[1].toObject().value(QStringLiteral("positions")).toArray() != fromFile.value(QStringLiteral("positions")).toArray());
        QVERIFY(otherModels[1].toObject().value(QStringLiteral("kld")).toObject().value(QStringLiteral("mean")).toDouble()
                != fromFile.value(QStringLiteral("kld")).toObject().value(QStringLiteral("mean")).toDouble());
    }

    void kldSimulateMisuseIsOneLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        const QString model = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        const QString tokens = QStringLiteral("1,2,3");
        QTest::newRow("imatrix without simulate") << QStringList{QStringLiteral("kld"), model, model, QStringLiteral("--imatrix"),
                                                                 fixturePath(QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf")), QStringLiteral("--tokens"), tokens};
        QTest::newRow("iq2_xxs type without imatrix")
            << QStringList{QStringLiteral("kld"), model, QStringLiteral("--simulate"), QStringLiteral("iq2_xxs"), QStringLiteral("--tokens"), tokens};
        QTest::newRow("IQ2_XXS preset without imatrix")
            << QStringList{QStringLiteral("kld"), model, QStringLiteral("--preset"), QStringLiteral("IQ2_XXS"), QStringLiteral("--tokens"), tokens};
        QTest::newRow("Q2_K_S preset without imatrix")
            << QStringList{QStringLiteral("kld"), model, QStringLiteral("--simulate"), QStringLiteral("Q2_K_S"), QStringLiteral("--tokens"), tokens};
        QTest::newRow("not an imatrix")
            << QStringList{QStringLiteral("kld"), model, QStringLiteral("--simulate"), QStringLiteral("Q4_K_M"), QStringLiteral("--imatrix"), model,
                           QStringLiteral("--tokens"), tokens};
        QTest::newRow("missing imatrix")
            << QStringList{QStringLiteral("kld"), model, QStringLiteral("--simulate"), QStringLiteral("Q4_K_M"), QStringLiteral("--imatrix"),
                           fixturePath(QStringLiteral("does-not-exist.dat")), QStringLiteral("--tokens"), tokens};
    }

    void kldSimulateMisuseIsOneLine()
    {
        QFETCH(QStringList, arguments);
        const auto run = runCli(arguments);
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    }
};

QTEST_GUILESS_MAIN(CliForwardTest)
#include "tst_cli_forward.moc"
