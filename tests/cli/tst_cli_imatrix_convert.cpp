// `gguf-explorer-cli imatrix FILE -o OUT`: both of llama-imatrix's formats both ways, byte for
// byte as llama-imatrix converts them (`llama-imatrix --in-file FILE -o OUT -c 128`, the shared
// fixtures' README, section 3), and what the output cannot keep said on stderr.

#include "CliRunner.h"
#include "FileBytes.h"
#include "Fixtures.h"

#include <QTemporaryDir>
#include <QtTest>

using testsupport::contentOf;
using testsupport::fixturePath;
using testsupport::runCli;

class TestCliImatrixConvert : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    // Each row: input, output name, extra options, the fixture the output must equal byte for
    // byte. The GGUF and .dat fixtures of one model come from two llama-imatrix runs that
    // computed the same sums, so each converts into the other.
    void convertsAsLlamaImatrix_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("expected");
        for (const QString model : {"tiny-llama", "tiny-moe"}) {
            const QString gguf = "llama.cpp/" + model + ".imatrix.gguf";
            const QString dat = "llama.cpp/" + model + ".imatrix.dat";
            QTest::newRow(qPrintable(model + " gguf to dat")) << gguf << "out.dat" << QStringList{} << dat;
            QTest::newRow(qPrintable(model + " gguf to gguf")) << gguf << "out.gguf" << QStringList{} << gguf;
            QTest::newRow(qPrintable(model + " dat to dat")) << dat << "out.dat" << QStringList{"--chunk", "128"} << dat;
            QTest::newRow(qPrintable(model + " gguf to dat by --output-format"))
                << gguf << "out.imatrix" << QStringList{"--output-format", "dat"} << dat;
        }
        // Dense matrices lose nothing in the .dat: the GGUF comes back whole.
        QTest::newRow("tiny-llama dat to gguf") << "llama.cpp/tiny-llama.imatrix.dat" << "out.gguf" << QStringList{"--chunk", "128"}
                                                << "llama.cpp/tiny-llama.imatrix.gguf";
    }

    void convertsAsLlamaImatrix()
    {
        QFETCH(QString, input);
        QFETCH(QString, output);
        QFETCH(QStringList, options);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString out = dir.filePath(output);
        const auto run = runCli(QStringList{"imatrix", fixturePath(input), "-o", out} + options);
        QVERIFY2(run.exitCode == 0 && !run.crashed, qPrintable(run.describe()));
        const QByteArray written = contentOf(out);
        const QByteArray reference = contentOf(fixturePath(expected));
        QCOMPARE(written.size(), reference.size());
        QVERIFY(written == reference);
    }

    // The .dat keeps one ncall per matrix: GGUF to .dat says which per-expert counts go, and
    // .dat to GGUF gives each expert matrix one row and one count, as llama-imatrix does
    // (tiny-moe blk.0: ncall 58 over chunks of 128, so 7424 tokens).
    void perExpertCountsLostAreNamed()
    {
        QTemporaryDir dir;
        auto run = runCli({"imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.gguf"), "-o", dir.filePath("m.dat")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("per-expert token counts of 6 matrices are not kept"), run.err.constData());

        run = runCli({"imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.dat"), "-o", dir.filePath("m.gguf"), "--chunk", "128"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("6 expert matrices are written as one row with one count"), run.err.constData());
        const auto report = runCli({"imatrix", dir.filePath("m.gguf"), "--json"});
        QCOMPARE(report.exitCode, 0);
        QVERIFY2(report.out.contains("\"name\":\"blk.0.ffn_down_exps.weight\",\"columns\":4096,\"experts\":1,\"tokens\":7424"),
                 report.out.constData());

        // Without --chunk a .dat's chunk size is unknown: llama-imatrix's default, said.
        run = runCli({"imatrix", fixturePath("llama.cpp/tiny-llama.imatrix.dat"), "-o", dir.filePath("d.gguf")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("default of 512 tokens"), run.err.constData());
    }

    void refusesBadRequests()
    {
        QTemporaryDir dir;
        const QString matrix = fixturePath("llama.cpp/tiny-llama.imatrix.gguf");
        auto run = runCli({"imatrix", matrix, "-o", dir.filePath("x.dat"), "--chunk", "0"});
        QVERIFY2(run.failedWithOneLine() && run.exitCode == 2, qPrintable(run.describe()));
        run = runCli({"imatrix", matrix, "-o", dir.filePath("x.dat"), "--output-format", "json"});
        QVERIFY2(run.failedWithOneLine() && run.exitCode == 2, qPrintable(run.describe()));
        QVERIFY(!QFile::exists(dir.filePath("x.dat")));

        // Never over its own input.
        const QString copy = dir.filePath("copy.gguf");
        QVERIFY(QFile::copy(matrix, copy));
        run = runCli({"imatrix", copy, "-o", copy});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY(contentOf(copy) == contentOf(matrix));
    }
};

QTEST_GUILESS_MAIN(TestCliImatrixConvert)
#include "tst_cli_imatrix_convert.moc"
