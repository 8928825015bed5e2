// `gguf-explorer-cli imatrix MODEL --text-file T -o OUT`: importance matrices computed from the
// pass here, byte for byte llama-imatrix's (`llama-imatrix -m MODEL -f T -c N -b N --chunks K`).
// The oracles: a few chunks from llama-imatrix itself (tests/data/imatrix-oracle, fast enough
// under the sanitizers) and, outside them, the shared fixtures' 64-chunk runs (README section 3).

#include "CliRunner.h"
#include "FileBytes.h"
#include "ImatrixOracle.h"
#include "Fixtures.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::contentOf;
using testsupport::fixturePath;
using testsupport::runCli;

using testsupport::imatrixOraclePath;
const QString& kText = testsupport::kImatrixText;

class TestCliImatrixCompute : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath()));
        QVERIFY2(QFile::exists(kText), "the text of the oracles is missing");
    }

    // Each row: model, output name, options, the file the output must equal byte for byte.
    void matchesLlamaImatrix_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("expected");
        const QString llama = fixturePath("tiny-llama-F32.gguf");
        const QString moe = fixturePath("tiny-moe-F16.gguf");
        QTest::newRow("tiny-llama, 2 chunks, --process-output")
            << llama << "out.gguf" << QStringList{"--chunk", "128", "--chunks", "2", "--process-output"}
            << imatrixOraclePath("tiny-llama-2chunks-output.imatrix.gguf");
        QTest::newRow("tiny-moe, 2 chunks") << moe << "out.gguf" << QStringList{"--chunk", "128", "--chunks", "2"}
                                            << imatrixOraclePath("tiny-moe-2chunks.imatrix.gguf");
        // 600 tokens are two of llama.cpp's ubatches (512 + 88): each expert is summed ubatch by
        // ubatch, slot by slot within each.
        QTest::newRow("tiny-moe, one chunk of 600") << moe << "out.gguf" << QStringList{"--chunk", "600", "--chunks", "1"}
                                                    << imatrixOraclePath("tiny-moe-600.imatrix.gguf");
        // Multi-head latent attention: attn_k_b and attn_v_b are 3-D (one matrix per head), each
        // head's sums a row of its entry and one count of the tokens. deepseek2 (q compressed, a
        // 48-wide latent) is llama.cpp's to the bit with flash attention off; with it on, the
        // latent attention's output differs in the last bit and only attn_v_b's sums follow it.
        const QStringList twoChunks{"--chunk", "128", "--chunks", "2"};
        QTest::newRow("deepseek2-lite Q8_0, 2 chunks") << fixturePath("llama.cpp/arch/deepseek2-lite/deepseek2-lite-Q8_0.gguf") << "out.gguf"
                                                       << twoChunks << imatrixOraclePath("deepseek2-lite-Q8_0-2chunks.imatrix.gguf");
        QTest::newRow("deepseek2 Q8_0, 2 chunks, flash attention off")
            << fixturePath("llama.cpp/arch/deepseek2/deepseek2-Q8_0.gguf") << "out.gguf" << twoChunks + QStringList{"--flash-attn", "off"}
            << imatrixOraclePath("deepseek2-Q8_0-2chunks-fa-off.imatrix.gguf");
#ifndef GGUFX_SANITIZED
        // The shared fixtures' whole runs of tiny-llama (about a second of CPU each; tiny-moe's
        // takes ten, its oracle here is llama-imatrix's shorter runs above).
        const QStringList run64{"--chunk", "128", "--chunks", "64"};
        QTest::newRow("tiny-llama, 64 chunks, GGUF") << llama << "out.gguf" << run64 << fixturePath("llama.cpp/tiny-llama.imatrix.gguf");
        QTest::newRow("tiny-llama, 64 chunks, .dat") << llama << "out.dat" << run64 << fixturePath("llama.cpp/tiny-llama.imatrix.dat");
#endif
    }

    void matchesLlamaImatrix()
    {
        QFETCH(QString, model);
        QFETCH(QString, output);
        QFETCH(QStringList, options);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString out = dir.filePath(output);
        const auto run = runCli(QStringList{"imatrix", model, "--text-file", kText, "-o", out, "--quiet"} + options);
        QVERIFY2(run.exitCode == 0 && !run.crashed, qPrintable(run.describe()));
        const QByteArray written = contentOf(out);
        const QByteArray reference = contentOf(expected);
        QCOMPARE(written.size(), reference.size());
        QVERIFY(written == reference);
    }

    // Sums that are llama-imatrix's bit for bit convert to its .dat bit for bit: the 2-chunk MoE
    // matrix written as .dat equals the oracle's GGUF converted (a path tested against
    // llama-imatrix's own conversion in tst_cli_imatrix_convert).
    void datOfOwnOutputIsLlamaImatrixs()
    {
        QTemporaryDir dir;
        const auto run = runCli({"imatrix", fixturePath("tiny-moe-F16.gguf"), "--text-file", kText, "-o", dir.filePath("own.dat"), "--chunk",
                                 "128", "--chunks", "2", "--quiet"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.err.contains("per-expert token counts of 6 matrices are not kept"), run.err.constData());
        const auto converted = runCli({"imatrix", imatrixOraclePath("tiny-moe-2chunks.imatrix.gguf"), "-o", dir.filePath("oracle.dat")});
        QVERIFY2(converted.exitCode == 0, qPrintable(converted.describe()));
        QCOMPARE(contentOf(dir.filePath("own.dat")), contentOf(dir.filePath("oracle.dat")));
    }

    // Experts the text never reached are named; --min-expert-tokens turns too few into a
    // failure that writes nothing. In 2 chunks tiny-moe routes no token to expert 1 of layer 0
    // and experts 1, 2 and 6 of layer 1 (the oracle's counts).
    void expertsWithoutTokensAreNamed()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("m.gguf");
        const QStringList base{"imatrix", fixturePath("tiny-moe-F16.gguf"), "--text-file", kText, "-o", out, "--chunk", "128", "--chunks", "2",
                               "--quiet"};
        auto run = runCli(base);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.err.contains("12 expert matrices got no tokens"), run.err.constData());
        QVERIFY2(run.err.contains("blk.0.ffn_down_exps.weight expert 1 (0)"), run.err.constData());

        QFile::remove(out);
        run = runCli(base + QStringList{"--min-expert-tokens", "14"});
        QCOMPARE(run.exitCode, 1);
        // Below 14: layer 0's experts 0 (13), 1 (0) and 5 (3) and layer 1's 1, 2, 3 (7), 6 and 7 (5), in each of 3 matrices.
        QVERIFY2(run.err.contains("24 expert matrices got fewer than 14 tokens"), run.err.constData());
        QVERIFY2(run.err.contains("blk.0.ffn_down_exps.weight expert 0 (13)"), run.err.constData());
        QVERIFY2(!QFile::exists(out), "nothing may be written when experts got too few tokens");

        run = runCli(base + QStringList{"--min-expert-tokens", "1"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("12 expert matrices got fewer than 1 tokens"), run.err.constData());
    }

    // llama-imatrix's refusals and bad options, each with a message that says what.
    void refusals_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no chunks") << QStringList{"--chunks", "0"} << 2 << "--chunks must be a whole number from 1";
        QTest::newRow("chunk of one token") << QStringList{"--chunk", "1"} << 2 << "--chunk must be a whole number from 2";
        QTest::newRow("negative expert tokens") << QStringList{"--min-expert-tokens", "-1"} << 2 << "--min-expert-tokens must be";
        QTest::newRow("unknown format") << QStringList{"--output-format", "npy"} << 2 << "--output-format must be gguf or dat";
    }

    void refusals()
    {
        QFETCH(QStringList, options);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString out = dir.filePath("m.gguf");
        const auto run = runCli(QStringList{"imatrix", fixturePath("tiny-llama-F32.gguf"), "--text-file", kText, "-o", out} + options);
        QCOMPARE(run.exitCode, exitCode);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY(!QFile::exists(out));
    }

    // llama-imatrix asks for two chunks' tokens at least.
    void refusesAShortText()
    {
        QTemporaryDir dir;
        const QString text = dir.filePath("short.txt");
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("Too short a text for two chunks of 128 tokens.\n");
        file.close();
        const auto run = runCli({"imatrix", fixturePath("tiny-llama-F32.gguf"), "--text-file", text, "-o", dir.filePath("m.gguf"), "--chunk", "128"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("chunks of 128 need at least 256 (as llama-imatrix asks)"), run.err.constData());
        QVERIFY(!QFile::exists(dir.filePath("m.gguf")));
    }

    void needsAnOutput()
    {
        const auto run = runCli({"imatrix", fixturePath("tiny-llama-F32.gguf"), "--text-file", kText});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--text-file T -o OUT"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliImatrixCompute)
#include "tst_cli_imatrix_compute.moc"
