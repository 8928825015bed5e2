// `scan MODEL --text-file T --imatrix-out OUT`: the importance matrix collected in the scan's
// reference pass is the one `imatrix MODEL --text-file T --chunk C --chunks K` writes (llama-
// imatrix's bytes: tst_cli_imatrix_compute), and the scan's own figures do not change; where the
// scan's chunks cannot be llama-imatrix's, the option is refused before anything runs.

#include "CliRunner.h"
#include "FileBytes.h"
#include "Fixtures.h"
#include "ImatrixOracle.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::contentOf;
using testsupport::fixturePath;
using testsupport::runCli;

class TestCliScanImatrix : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath()));
        QVERIFY2(QFile::exists(testsupport::kImatrixText), "the text of the oracles is missing");
    }

    // Over 2 chunks of 128, from a scan of one layer's probes: tiny-llama's matrix is the
    // standalone command's (.gguf and .dat), and the scan's JSON is the same without the option
    // (the reference computes every position's logits, the scored ones as before).
    void matrixIsTheImatrixCommandsAndTheScanUnchanged_data()
    {
        QTest::addColumn<QString>("output");
        QTest::newRow("GGUF") << "m.gguf";
        QTest::newRow(".dat") << "m.dat";
    }

    void matrixIsTheImatrixCommandsAndTheScanUnchanged()
    {
        QFETCH(QString, output);
        QTemporaryDir dir;
        const QString model = fixturePath("tiny-llama-F32.gguf");
        const QStringList scan{"scan", model, "--text-file", testsupport::kImatrixText, "--chunk", "128", "--max-tokens", "300",
                               "--types", "q8_0", "--layers", "0", "--json", "--quiet"};
        const auto with = runCli(scan + QStringList{"--imatrix-out", dir.filePath(output)});
        QVERIFY2(with.exitCode == 0 && !with.crashed, qPrintable(with.describe()));
        const auto alone = runCli({"imatrix", model, "--text-file", testsupport::kImatrixText, "--chunk", "128", "--chunks", "2", "-o",
                                   dir.filePath("alone-" + output), "--quiet"});
        QVERIFY2(alone.exitCode == 0, qPrintable(alone.describe()));
        const QByteArray written = contentOf(dir.filePath(output));
        QVERIFY(!written.isEmpty());
        QVERIFY(written == contentOf(dir.filePath("alone-" + output)));

        const auto without = runCli(scan);
        QVERIFY2(without.exitCode == 0, qPrintable(without.describe()));
        QCOMPARE(with.out, without.out);
    }

#ifndef GGUFX_SANITIZED
    // A MoE (per-expert counts, sums slot by slot): llama-imatrix's own file for tiny-moe F16
    // (a few seconds of quantizing its output matrix: outside the sanitizers).
    void moeMatrixIsLlamaImatrixs()
    {
        QTemporaryDir dir;
        const auto run = runCli({"scan", fixturePath("tiny-moe-F16.gguf"), "--text-file", testsupport::kImatrixText, "--chunk", "128",
                                 "--max-tokens", "256", "--types", "q8_0", "--layers", "0", "--quiet", "--imatrix-out", dir.filePath("m.gguf")});
        QVERIFY2(run.exitCode == 0 && !run.crashed, qPrintable(run.describe()));
        const QByteArray written = contentOf(dir.filePath("m.gguf"));
        const QByteArray reference = contentOf(testsupport::imatrixOraclePath("tiny-moe-2chunks.imatrix.gguf"));
        QCOMPARE(written.size(), reference.size());
        QVERIFY(written == reference);
    }
#endif

    void refusesWhatLlamaImatrixWouldChunkOtherwise_data()
    {
        QTest::addColumn<QByteArray>("text");  // empty: --tokens instead of a text
        QTest::addColumn<QString>("message");
        QTest::newRow("token ids") << QByteArray() << "llama-imatrix reads a text: give --text-file, not --tokens";
        QTest::newRow("special-token text") << QByteArray("Hello <s> world, and more words to make a chunk.\n")
                                            << "the text spells special tokens, which the scan parses and llama-imatrix does not";
        QTest::newRow("fewer than two chunks") << QByteArray("Hello world, too short for two chunks.\n")
                                               << "llama-imatrix needs at least two chunks' (256)";
    }

    void refusesWhatLlamaImatrixWouldChunkOtherwise()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QStringList args{"scan", fixturePath("tiny-llama-F32.gguf"), "--chunk", "128", "--types", "q8_0", "--imatrix-out", dir.filePath("m.gguf")};
        if (text.isEmpty()) {
            args << "--tokens" << "1,2,3,4,5,6,7,8";
        } else {
            QFile file(dir.filePath("t.txt"));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
            file.close();
            args << "--text-file" << dir.filePath("t.txt");
        }
        const auto run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY(!QFile::exists(dir.filePath("m.gguf")));
    }
};

QTEST_GUILESS_MAIN(TestCliScanImatrix)
#include "tst_cli_scan_imatrix.moc"
