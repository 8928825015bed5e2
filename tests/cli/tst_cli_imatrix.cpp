// `gguf-explorer-cli imatrix`: coverage, validation against a model, llama-imatrix's statistics,
// the MoE routing map and top columns, in text and JSON, and one-line failures on bad input.

#include "CliRunner.h"
#include "Fixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using testsupport::fixturePath;
using testsupport::runCli;

class TestCliImatrix : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    void textReportForMoe()
    {
        const auto run = runCli({"imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.gguf"), "--model", fixturePath("tiny-moe-F16.gguf")});
        QVERIFY2(run.exitCode == 0 && run.finished, qPrintable(run.describe()));
        const QString out = QString::fromUtf8(run.out);
        QVERIFY(out.contains("validation against " + fixturePath("tiny-moe-F16.gguf") + ": 0 error(s), 0 warning(s)"));
        QVERIFY(out.contains("16 of 16 entries match a tensor; 2 matrices have no importance: token_embd.weight output.weight"));
        QVERIFY(out.contains("  blk.0.ffn_down_exps.weight                512        8       7330    57.27\n"));
        QVERIFY2(out.contains("      1    6765      200*     272     1013      450     6924       66*     694 \n"), qPrintable(out));
        QVERIFY(out.contains("layer 1 expert 6: 66 tokens, 3.2% of an even share"));
        QVERIFY(!out.contains("layer 0 expert"));
        // The statistics rows as llama-imatrix printed them (fixture tiny-moe.imatrix-stats.txt).
        QVERIFY(out.contains("    1\tffn_down_exps       \t14776145.00\t  0.0000\t 54314.2734\t3607.46\t8232.76\t  100.00%\t  4096\t    9.7035\t 80.86%\t     12.40%\t  0.0491\n"));
        QVERIFY(out.contains("    1\t    6390698.00\t    7.2002%\t0.0942\n"));
        QVERIFY(out.contains("  blk.0.ffn_gate_exps.weight: 148 (13.7%) 106 (8.2%)"));
    }

    void jsonReport()
    {
        const auto run = runCli({"imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.gguf"), "--json", "--top", "3"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QJsonParseError error;
        const QJsonObject root = QJsonDocument::fromJson(run.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(root["format"].toString(), "gguf");
        QCOMPARE(root["chunk_count"].toInt(), 64);
        QCOMPARE(root["datasets"].toArray().first().toString(), "/usr/share/common-licenses/GPL-3");
        const QJsonArray entries = root["entries"].toArray();
        QCOMPARE(entries.size(), 16);
        QJsonObject down;
        for (const auto& e : entries)
            if (e.toObject()["name"] == "blk.1.ffn_down_exps.weight")
                down = e.toObject();
        QCOMPARE(down["experts"].toInt(), 8);
        QCOMPARE(down["columns"].toInt(), 512);
        QCOMPARE(down["tokens_per_expert"].toArray()[6].toDouble(), 66.0);
        QCOMPARE(down["top_columns"].toArray().size(), 3);
        QVERIFY(root["validation"].toObject()["model"].isNull());
        const QJsonArray rare = root["routing"].toObject()["rare"].toArray();
        QCOMPARE(rare.size(), 2);
        QCOMPARE(rare[0].toObject()["layer"].toInt(), 1);
        QCOMPARE(rare[0].toObject()["expert"].toInt(), 1);
        QCOMPARE(rare[1].toObject()["expert"].toInt(), 6);
        const QJsonArray stats = root["statistics"].toObject()["tensors"].toArray();
        QCOMPARE(stats.size(), 16);
        QCOMPARE(stats[0].toObject()["name"].toString(), "blk.1.attn_k.weight");
        QCOMPARE(stats[0].toObject()["n"].toInt(), 256);
    }

    void legacyHasNoRouting()
    {
        const auto run = runCli({"imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.dat"), "--model", fixturePath("tiny-moe-F16.gguf")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QString out = QString::fromUtf8(run.out);
        QVERIFY(out.contains("legacy .dat, 16 entries"));
        QVERIFY(out.contains("expert routing: unknown"));
        // Bound to the model: 8 experts of 256 columns each, not one row of 2048.
        QVERIFY2(out.contains("  blk.0.ffn_gate_exps.weight                256        8         58    58.00\n"), qPrintable(out));
    }

    void wrongModelWarnsAndShapeErrorsExitThree()
    {
        // The MoE model's imatrix on the dense model: the 8 expert and router entries match no
        // tensor (warnings, exit 0: its attention entries fit); the dense FFN goes without importance.
        auto run = runCli({"imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.gguf"), "--model", fixturePath("tiny-llama-F32.gguf")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains(": 0 error(s), 8 warning(s)\n"), qPrintable(out));
        QVERIFY(out.contains("warning: blk.0.ffn_up_exps.weight: name: matches no tensor of the model; llama-quantize never uses it (at byte 32224)"));
        QVERIFY(out.contains("8 matrices have no importance: token_embd.weight blk.0.ffn_gate.weight"));

        // A legacy file whose attn_q has 128 columns where the model has 256: exit 3.
        QTemporaryDir dir;
        QByteArray bytes;
        auto i32 = [&](std::int32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
        const QByteArray name = "blk.0.attn_q.weight";
        i32(1);
        i32(std::int32_t(name.size()));
        bytes.append(name);
        i32(4);
        i32(128);
        for (int i = 0; i < 128; ++i) {
            const float v = 1.0f + float(i);
            bytes.append(reinterpret_cast<const char*>(&v), 4);
        }
        const QString path = dir.filePath("narrow.dat");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        file.close();
        run = runCli({"imatrix", path, "--model", fixturePath("tiny-llama-F32.gguf")});
        QCOMPARE(run.exitCode, 3);
        out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains("error: blk.0.attn_q.weight: shape: column count 128 differs from the tensor's ne[0] = 256"), qPrintable(out));
        QVERIFY(out.contains("(at byte 35)"));  // 4 + 4 + 19 + ncall + nval: where the values start

        // A matrix none of whose entries names a tensor of the model is of another model: an
        // error (every command that quantizes with it refuses it), not only a warning per entry.
        bytes.clear();
        const QByteArray moeName = "blk.0.ffn_up_exps.weight";
        i32(1);
        i32(std::int32_t(moeName.size()));
        bytes.append(moeName);
        i32(4);
        i32(256);
        for (int i = 0; i < 256; ++i) {
            const float v = 1.0f;
            bytes.append(reinterpret_cast<const char*>(&v), 4);
        }
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(bytes);
        file.close();
        run = runCli({"imatrix", path, "--model", fixturePath("tiny-llama-F32.gguf")});
        QCOMPARE(run.exitCode, 3);
        out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains(": 1 error(s), 1 warning(s)\n  error: this importance matrix is of another model: its one entry names no tensor of "
                              "this model\n  warning: blk.0.ffn_up_exps.weight: name: matches no tensor of the model"),
                 qPrintable(out));
    }

    void compareWithImportance()
    {
        const QString ref = fixturePath("tiny-moe-F16.gguf");
        const QString imat = fixturePath("llama.cpp/tiny-moe-imat-Q4_K_M.gguf");
        const QString matrix = fixturePath("llama.cpp/tiny-moe.imatrix.gguf");
        auto plain = runCli({"compare", ref, imat, "--filter", "blk\\.1\\."});
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.describe()));
        QVERIFY(!plain.out.contains("w_sq_err"));
        auto run = runCli({"compare", ref, imat, "--filter", "blk\\.1\\.", "--imatrix", matrix});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QString out = QString::fromUtf8(run.out);
        QVERIFY(out.contains("    w_sq_err   rel_w_err\n"));
        // The plain part of each line is what the plain run printed.
        const QStringList plainLines = QString::fromUtf8(plain.out).split('\n');
        const QString q = plainLines.filter(QRegularExpression("^blk\\.1\\.attn_q\\.weight ")).value(0);
        QVERIFY(!q.isEmpty());
        QVERIFY2(out.contains(q + "  4.3383e-01  7.8100e-03\n"), qPrintable(out));
        QVERIFY(out.contains("(8 of 10 compared tensors weighted;"));
        QVERIFY(out.contains("per layer, column 1:"));
        QVERIFY(out.contains("  blk.1.ffn_down_exps.weight [1]: "));

        const auto json = runCli({"compare", ref, imat, "--filter", "ffn_down_exps", "--imatrix", matrix, "--json"});
        QVERIFY2(json.exitCode == 0, qPrintable(json.describe()));
        const QJsonObject root = QJsonDocument::fromJson(json.out).object();
        const QJsonObject cell = root["tensors"].toArray()[0].toObject()["results"].toArray()[0].toObject();
        QCOMPARE(cell["experts"].toArray().size(), 8);
        QVERIFY(cell["relative_weighted_error"].toDouble() > 0.0);
        QVERIFY(root["columns"].toArray()[0].toObject()["layers"].toArray().size() == 2);
        QCOMPARE(root["importance_matrix"].toObject()["entries"].toInt(), 16);

        const auto columns = runCli({"compare", ref, imat, "--imatrix", matrix, "--column-errors", "blk.0.ffn_down_exps.weight", "--expert", "2", "--json"});
        QVERIFY2(columns.exitCode == 0, qPrintable(columns.describe()));
        const QJsonObject profile = QJsonDocument::fromJson(columns.out).object();
        QCOMPARE(profile["importance"].toArray().size(), 512);
        QCOMPARE(profile["expert"].toInt(), 2);
        QCOMPARE(profile["columns"].toArray()[0].toObject()["weighted_squared_error"].toArray().size(), 512);
        QCOMPARE(profile["columns"].toArray()[0].toObject()["values_per_column"].toInt(), 256);
        const auto text = runCli({"compare", ref, imat, "--imatrix", matrix, "--column-errors", "blk.0.ffn_down_exps.weight"});
        QVERIFY2(text.exitCode == 0, qPrintable(text.describe()));
        QVERIFY(text.out.contains("the 16 columns with the most weighted error"));

        auto bad = runCli({"compare", ref, imat, "--imatrix", fixturePath("tiny-moe-F16.gguf")});
        QVERIFY2(bad.failedWithOneLine(), qPrintable(bad.describe()));
        QVERIFY(bad.err.contains("missing imatrix metadata key"));
        bad = runCli({"compare", ref, imat, "--imatrix", matrix, "--column-errors", "nope"});
        QVERIFY(bad.failedWithOneLine());
        QCOMPARE(bad.exitCode, 2);
    }

    // --simulate with --imatrix quantizes as llama-quantize --imatrix: the simulated q4_K of
    // blk.0.attn_q has exactly the error of the q4_K tensor llama-quantize wrote with this
    // imatrix (Q4_K_S keeps attn_q at q4_K), and without --imatrix it has not.
    void simulationQuantizesWithImportance()
    {
        const QString ref = fixturePath("tiny-llama-F32.gguf");
        const QString quant = fixturePath("llama.cpp/tiny-llama-imat-Q4_K_S.gguf");
        const QString matrix = fixturePath("llama.cpp/tiny-llama.imatrix.gguf");
        const auto cells = [&](const QStringList& extra) {
            auto run = runCli(QStringList{"compare", ref, quant, "--simulate", "q4_K", "--filter", "blk\\.0\\.attn_q\\.", "--json"} + extra);
            const QJsonObject root = QJsonDocument::fromJson(run.out).object();
            return std::make_pair(run, root["tensors"].toArray()[0].toObject()["results"].toArray());
        };
        const auto [weighted, weightedCells] = cells({"--imatrix", matrix});
        QVERIFY2(weighted.exitCode == 0, qPrintable(weighted.describe()));
        QCOMPARE(weightedCells.size(), 2);
        const double fileRmse = weightedCells[0].toObject()["rmse"].toDouble();
        QVERIFY(fileRmse > 0.0);
        QCOMPARE(weightedCells[1].toObject()["rmse"].toDouble(), fileRmse);
        QCOMPARE(weightedCells[1].toObject()["max_abs_error"].toDouble(), weightedCells[0].toObject()["max_abs_error"].toDouble());
        const auto [plain, plainCells] = cells({});
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.describe()));
        QVERIFY(plainCells[1].toObject()["rmse"].toDouble() != fileRmse);
    }

    void namesFromTheFileAreEscaped()
    {
        // A legacy entry whose name carries an escape sequence and a newline: printed escaped in
        // every section (findings, coverage, top columns, statistics), never raw.
        QTemporaryDir dir;
        QByteArray bytes;
        auto i32 = [&](std::int32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
        const QByteArray name = "blk.0.\x1b[31mevil\nline.weight";
        i32(1);
        i32(std::int32_t(name.size()));
        bytes.append(name);
        i32(1);
        i32(4);
        for (float v : {1.0f, 2.0f, 3.0f, 4.0f})
            bytes.append(reinterpret_cast<const char*>(&v), 4);
        const QString path = dir.filePath("evil.dat");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        file.close();
        const auto run = runCli({"imatrix", path, "--model", fixturePath("tiny-llama-F32.gguf")});
        // Exit 3: its one entry names no tensor of the model, so it is of another model.
        QVERIFY2(run.exitCode == 3 && run.finished, qPrintable(run.describe()));
        QVERIFY(!run.out.contains('\x1b'));
        QVERIFY(!run.out.contains("evil\nline"));
        QVERIFY2(run.out.contains("blk.0.\\x1b[31mevil\\nline.weight: name: matches no tensor"), run.out.constData());
        QVERIFY(run.out.contains("\t\\x1b[31mevil\\nline"));  // the statistics' tensor column
    }

    void badInputsFailWithOneLine()
    {
        QTemporaryDir dir;
        const QString truncated = dir.filePath("cut.dat");
        {
            QFile in(fixturePath("llama.cpp/tiny-llama.imatrix.dat"));
            QVERIFY(in.open(QIODevice::ReadOnly));
            QFile out(truncated);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(in.read(1000));
        }
        auto run = runCli({"imatrix", truncated});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("truncated legacy imatrix") && run.err.contains("(at byte "), run.err.constData());

        const QString fifo = dir.filePath("pipe");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        run = runCli({"imatrix", fifo});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY(run.err.contains("not a regular file (a FIFO)"));

        run = runCli({"imatrix", fixturePath("llama.cpp/tiny-llama.imatrix.gguf"), "--top", "x"});
        QVERIFY(run.failedWithOneLine());
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliImatrix)
#include "tst_cli_imatrix.moc"
