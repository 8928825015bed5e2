// The recipe, plan and preset-convert commands as a user runs them: `recipe MODEL --preset P
// --json` gives exactly llama-quantize's recipe for every fixture; `recipe FILE` shows the grid
// and the audit; `convert --type PRESET` writes files identical to llama-quantize's (every byte,
// so the tensor data too) for the no-imatrix mixes the core can quantize; rules and rules files
// change the types they name and nothing else; refusals and bad inputs fail with one line.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OrderedJson.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::fixturePath;

namespace {

testsupport::CliRun cli(const QStringList& arguments)
{
    return testsupport::runProgram(testsupport::cliPath(), arguments);
}

// name -> type of a `.recipe.json` or of our --json output, in order.
std::vector<std::pair<QByteArray, QByteArray>> tensorTypes(const QByteArray& json)
{
    QString error;
    const auto root = testsupport::parseOrderedJson(json, &error);
    std::vector<std::pair<QByteArray, QByteArray>> types;
    if (!root || !root->member("tensors"))
        return types;
    for (const auto& [name, type] : root->member("tensors")->members)
        types.emplace_back(name, type.text);
    return types;
}

}  // namespace

class TestCliRecipe : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    void presetJsonEqualsLlamaQuantize_data()
    {
        QTest::addColumn<QString>("recipeFile");
        const QStringList files = testsupport::fixtureNames("llama.cpp", "*.recipe.json");
        QVERIFY2(!files.isEmpty(), "no llama.cpp/*.recipe.json fixtures");
        for (const QString& file : files)
            QTest::newRow(file.toUtf8().constData()) << file;
    }

    void presetJsonEqualsLlamaQuantize()
    {
        QFETCH(QString, recipeFile);
        const QByteArray expected = testsupport::readWholeFile(fixturePath("llama.cpp/" + recipeFile));
        const QJsonObject object = QJsonDocument::fromJson(expected).object();
        const QString source = fixturePath(object["source"].toString().section('/', 1));
        QStringList arguments{"recipe", source, "--preset", object["ftype"].toString(), "--json"};
        if (!object["imatrix"].isNull())
            arguments << "--imatrix" << fixturePath("llama.cpp/" + object["imatrix"].toString().section('/', 1));
        const auto run = cli(arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto ours = tensorTypes(run.out);
        QVERIFY(!ours.empty());
        QVERIFY(ours == tensorTypes(expected));
        const QJsonObject parsed = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(parsed["general.file_type"].toInt(), object["general.file_type"].toInt());
        QCOMPARE(parsed["ftype"].toString(), object["ftype"].toString());
    }

    // A preset that needs an imatrix, given none: the types are previewed with llama-quantize's
    // refusal as a warning (as llama-quantize --dry-run shows them); convert still refuses.
    void previewsWhatLlamaQuantizeRefuses()
    {
        const auto run = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q2_K_S"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.err.startsWith("gguf-explorer-cli: warning: "));
        QVERIFY(run.err.contains("requires an importance matrix"));
        QVERIFY(run.err.contains("blk.0.attn_k.weight"));
        QVERIFY(run.err.contains("q2_K"));
        QVERIFY(run.out.contains("blk.0.attn_k.weight"));
        QVERIFY(run.out.contains("warning: "));
        const auto json = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q2_K_S", "--json"});
        QVERIFY2(json.exitCode == 0, qPrintable(json.describe()));
        QVERIFY(QJsonDocument::fromJson(json.out).object()["needs_imatrix"].toBool());
        QVERIFY(QJsonDocument::fromJson(json.out).object()["warning"].toString().contains("blk.0.attn_k.weight"));
        const auto withImatrix = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q2_K_S", "--imatrix",
                                      fixturePath("llama.cpp/tiny-llama.imatrix.dat"), "--json"});
        QVERIFY2(withImatrix.exitCode == 0, qPrintable(withImatrix.describe()));
        QVERIFY(withImatrix.err.isEmpty());
        // The previewed types are those llama-quantize gives with an imatrix on this model.
        QVERIFY(tensorTypes(json.out) == tensorTypes(withImatrix.out));
        QVERIFY(QJsonDocument::fromJson(withImatrix.out).object()["warning"].isNull());
        // Every IQ1/IQ2 preset too.
        for (const char* preset : {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S"}) {
            const auto iq = cli({"recipe", fixturePath("tiny-moe-F16.gguf"), "--preset", preset, "--json"});
            QVERIFY2(iq.exitCode == 0 && iq.err.contains("warning"), qPrintable(QString(preset) + ": " + iq.describe()));
        }
        const auto convert = cli({"convert", fixturePath("tiny-llama-F32.gguf"), "/nonexistent-dir/x.gguf", "--type", "Q2_K_S"});
        QVERIFY2(convert.failedWithOneLine(), qPrintable(convert.describe()));
        QVERIFY(convert.err.contains("requires an importance matrix"));
    }

    void imatrixMustBeOne()
    {
        for (const QString& bad : {fixturePath("does-not-exist.dat"), fixturePath("tiny-llama-F32.gguf"), fixturePath("README.md")}) {
            const auto run = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_M", "--imatrix", bad});
            QVERIFY2(run.failedWithOneLine(), qPrintable(bad + ": " + run.describe()));
        }
        const auto gguf = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_M", "--imatrix",
                               fixturePath("llama.cpp/tiny-llama.imatrix.gguf")});
        QVERIFY2(gguf.exitCode == 0, qPrintable(gguf.describe()));
        QVERIFY(gguf.out.contains("with an imatrix"));
    }

    void gridAndAudit()
    {
        // The pure Q4_K fixture is labelled Q4_K_M: the audit names the three tensors llama-quantize would bump.
        const auto run = cli({"recipe", fixturePath("tiny-llama-Q4_K.gguf")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.out.contains("attn_v"));
        QVERIFY(run.out.contains("blk.1"));
        QVERIFY(run.out.contains("4.518 bits per weight"));
        QVERIFY(run.out.contains("3 of 21 tensors differ"));
        for (const char* tensor : {"output.weight", "blk.1.attn_v.weight", "blk.1.ffn_down.weight"})
            QVERIFY2(run.out.contains(QByteArray(tensor) + " "), tensor);
        const auto json = cli({"recipe", fixturePath("tiny-llama-Q4_K.gguf"), "--json"});
        QVERIFY2(json.exitCode == 0, qPrintable(json.describe()));
        const QJsonObject root = QJsonDocument::fromJson(json.out).object();
        const QJsonObject audit = root["audit"].toObject();
        QCOMPARE(audit["label_preset"].toString(), QStringLiteral("Q4_K_M"));
        QCOMPARE(audit["differences"].toArray().size(), 3);
        QCOMPARE(audit["matches_preset"].toBool(), false);
        const QJsonObject grid = root["grid"].toObject();
        QCOMPARE(grid["layers"].toArray().size(), 3);  // model, blk.0, blk.1
        QCOMPARE(grid["bytes"].toInteger(), 1111040);

        // A real llama-quantize output with an imatrix matches its label and shows the provenance keys.
        const auto real = cli({"recipe", fixturePath("llama.cpp/tiny-moe-imat-Q4_K_M.gguf"), "--json"});
        const QJsonObject realAudit = QJsonDocument::fromJson(real.out).object()["audit"].toObject();
        QCOMPARE(realAudit["matches_preset"].toBool(), true);
        QCOMPARE(realAudit["imatrix"].toObject()["quantize.imatrix.entries_count"].toString(), QStringLiteral("16"));
        const QJsonObject cells = QJsonDocument::fromJson(real.out).object()["grid"].toObject()["layers"].toArray()[2]
                                      .toObject()["cells"].toObject();
        QCOMPARE(cells["ffn_down_exps"].toObject()["type"].toString(), QStringLiteral("q6_K"));
        QCOMPARE(cells["ffn_gate_inp"].toObject()["type"].toString(), QStringLiteral("f32"));
    }

    // The mix in words, nominal against effective bits per weight, and the tensors that fell back
    // because their rows fit no block of the type llama-quantize chose (n_embd 128 < 256).
    void fileMixAndFallbacks()
    {
        const auto arch = cli({"recipe", fixturePath("llama.cpp/arch/llama/llama-Q4_K_M.gguf"), "--json"});
        QVERIFY2(arch.exitCode == 0, qPrintable(arch.describe()));
        const QJsonObject root = QJsonDocument::fromJson(arch.out).object();
        const QJsonObject mix = root["mix"].toObject();
        QCOMPARE(mix["nominal_type"].toString(), QStringLiteral("q4_K"));
        QCOMPARE(mix["nominal_bits_per_weight"].toDouble(), 4.5);
        QCOMPARE(mix["effective_bits_per_weight"].toDouble(), root["grid"].toObject()["bits_per_weight"].toDouble());
        QVERIFY(mix["effective_bits_per_weight"].toDouble() > 5.0);  // q5_0 and q8_0 instead of q4_K
        const QJsonArray fallbacks = mix["fallbacks"].toArray();
        QVERIFY(fallbacks.size() >= 20);
        bool sawAttnQ = false;
        for (const QJsonValue& f : fallbacks) {
            if (f["tensor"].toString() != "blk.0.attn_q.weight")
                continue;
            sawAttnQ = true;
            QCOMPARE(f["row_length"].toInt(), 128);
            QCOMPARE(f["chosen"].toString(), QStringLiteral("q4_K"));
            QCOMPARE(f["fallback"].toString(), QStringLiteral("q5_0"));
            QCOMPARE(f["stored"].toString(), QStringLiteral("q5_0"));
        }
        QVERIFY(sawAttnQ);
        QVERIFY2(mix["label"].toString().startsWith("mostly q5_0"), qPrintable(mix["label"].toString()));
        const auto text = cli({"recipe", fixturePath("llama.cpp/arch/llama/llama-Q4_K_M.gguf")});
        QVERIFY(text.out.contains("nominal 4.500 (q4_K)"));
        QVERIFY(text.out.contains("fell back"));
        QVERIFY(text.out.contains("blk.0.attn_q.weight"));

        // No fallback in tiny-llama (every row is 256 long): an empty list, and the mix in words.
        const auto tiny = cli({"recipe", fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf"), "--json"});
        const QJsonObject tinyMix = QJsonDocument::fromJson(tiny.out).object()["mix"].toObject();
        QVERIFY(tinyMix["fallbacks"].isArray() && tinyMix["fallbacks"].toArray().isEmpty());
        QCOMPARE(tinyMix["label"].toString(), QStringLiteral("mostly q4_K (80% of the weights); q6_K for output, attn_v in 1 of 2 layers, "
                                                             "ffn_down in 1 of 2 layers; norms and other unquantized tensors f32"));
    }

    void convertEqualsLlamaQuantize_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("expected");
        for (const char* preset : {"Q3_K_M", "Q4_K_S", "Q4_K_M", "Q5_K_M"})
            QTest::newRow(preset) << "tiny-llama-F32.gguf" << preset << QStringLiteral("llama.cpp/tiny-llama-mix-%1.gguf").arg(preset);
        QTest::newRow("moe Q4_K_M") << "tiny-moe-F16.gguf" << "Q4_K_M" << "llama.cpp/tiny-moe-mix-Q4_K_M.gguf";
    }

    void convertEqualsLlamaQuantize()
    {
        QFETCH(QString, source);
        QFETCH(QString, preset);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString out = dir.filePath("out.gguf");
        const auto run = cli({"convert", fixturePath(source), out, "--type", preset, "--threads", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QByteArray ours = testsupport::readWholeFile(out);
        const QByteArray theirs = testsupport::readWholeFile(fixturePath(expected));
        QCOMPARE(ours.size(), theirs.size());
        QVERIFY2(ours == theirs, "not byte-identical to llama-quantize's output");
    }

    // With the imatrix: every llama-quantize --imatrix fixture, whole file. llama-quantize ran
    // with the imatrix as `public/<name>` and wrote that path into quantize.imatrix.file, so the
    // CLI runs where `public` names the fixtures' llama.cpp folder.
    void convertWithImatrixEqualsLlamaQuantize_data()
    {
        QTest::addColumn<QString>("expected");
        QDir folder(fixturePath("llama.cpp"));
        const QStringList names = folder.entryList({"tiny-*-imat*.gguf"}, QDir::Files, QDir::Name);
        QVERIFY2(!names.isEmpty(), "no llama.cpp/tiny-*-imat*.gguf fixtures");
        for (const QString& name : names)
            QTest::newRow(qPrintable(name)) << name;
        QTest::newRow("tiny-llama-mix-IQ4_XS.gguf") << QStringLiteral("tiny-llama-mix-IQ4_XS.gguf");
    }

    void convertWithImatrixEqualsLlamaQuantize()
    {
        QFETCH(QString, expected);
        const QString recipeText = QString::fromUtf8(testsupport::readWholeFile(fixturePath("llama.cpp/" + expected + ".recipe.json")));
        const QJsonObject recipe = QJsonDocument::fromJson(recipeText.toUtf8()).object();
        QVERIFY2(!recipe.isEmpty(), qPrintable(expected));
        const QString log = QString::fromUtf8(testsupport::readWholeFile(fixturePath("llama.cpp/" + expected + ".log")));
        const QString command = log.section('\n', 0, 0);
        // The log's first line is the command: [--imatrix public/I] SOURCE public/OUT TYPE 2.
        const QStringList words = command.split(' ', Qt::SkipEmptyParts);
        const qsizetype typeAt = words.size() - 2;
        QVERIFY2(typeAt > 2, qPrintable(command));
        const QString preset = words[typeAt];
        const QString source = words[typeAt - 2].section('/', -1);
        QTemporaryDir dir;
        QVERIFY(QFile::link(fixturePath("llama.cpp"), dir.filePath("public")));
        QStringList arguments{"convert", fixturePath(source), dir.filePath("out.gguf"), "--preset", preset, "--threads", "2"};
        const qsizetype imatrixAt = words.indexOf("--imatrix");
        if (imatrixAt >= 0)
            arguments << "--imatrix" << words[imatrixAt + 1];
        const auto run = testsupport::runProgram(testsupport::cliPath(), arguments, dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QByteArray ours = testsupport::readWholeFile(dir.filePath("out.gguf"));
        const QByteArray theirs = testsupport::readWholeFile(fixturePath("llama.cpp/" + expected));
        QCOMPARE(ours.size(), theirs.size());
        QVERIFY2(ours == theirs, "not byte-identical to llama-quantize's output");
    }

    void rulesOverAPreset()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("ruled.gguf");
        auto run = cli({"convert", fixturePath("tiny-llama-F32.gguf"), out, "--type", "Q4_K_M", "--tensor-type", "blk\\.0\\.ffn_down=q8_0",
                        "--tensor-type", "attn_q=Q5_0", "--quiet"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.out.isEmpty());
        const auto recipe = cli({"recipe", out, "--json"});
        const QJsonArray layers = QJsonDocument::fromJson(recipe.out).object()["grid"].toObject()["layers"].toArray();
        const QJsonObject blk0 = layers[1].toObject()["cells"].toObject();
        const QJsonObject blk1 = layers[2].toObject()["cells"].toObject();
        QCOMPARE(blk0["ffn_down"].toObject()["type"].toString(), QStringLiteral("q8_0"));
        // llama-quantize's ffn_down counter does not advance over a tensor a rule chose, so
        // blk.1.ffn_down is counted as the first ffn_down and keeps q4_K (llama-quant.cpp: the
        // per-preset rules, which count, are skipped for a manual type).
        QCOMPARE(blk1["ffn_down"].toObject()["type"].toString(), QStringLiteral("q4_K"));
        QCOMPARE(blk0["attn_q"].toObject()["type"].toString(), QStringLiteral("q5_0"));
        QCOMPARE(blk1["attn_v"].toObject()["type"].toString(), QStringLiteral("q6_K"));

        // The same rules from a file (with the base preset named in it), no --type needed.
        const QString rules = dir.filePath("rules.txt");
        QFile file(rules);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("# base preset: Q4_K_M\nblk\\.0\\.ffn_down=q8_0\nattn_q=Q5_0\n");
        file.close();
        const QString fromFile = dir.filePath("from-file.gguf");
        run = cli({"convert", fixturePath("tiny-llama-F32.gguf"), fromFile, "--recipe", rules, "--quiet"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(testsupport::readWholeFile(fromFile) == testsupport::readWholeFile(out));

        run = cli({"convert", fixturePath("tiny-llama-F32.gguf"), dir.filePath("bad.gguf"), "--type", "Q4_K_M", "--tensor-type", "attn_q"});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        run = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_X"});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY(!QFile::exists(dir.filePath("bad.gguf")));
    }

    void planWithinABudget_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("size");
        QTest::newRow("llama 1.2MB") << "tiny-llama-F32.gguf" << "1.2MB";
        QTest::newRow("llama 1MiB") << "tiny-llama-F32.gguf" << "1MiB";
        QTest::newRow("llama 5.1bpw") << "tiny-llama-F32.gguf" << "5.1bpw";
        QTest::newRow("moe 3MB") << "tiny-moe-F16.gguf" << "3MB";
    }

    void planWithinABudget()
    {
        QFETCH(QString, model);
        QFETCH(QString, size);
        QTemporaryDir dir;
        const QString rules = dir.filePath("rules.txt");
        const auto run = cli({"plan", fixturePath(model), "--size", size, "-o", rules, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject root = QJsonDocument::fromJson(run.out).object();
        const QJsonObject plan = root["plan"].toObject();
        const qint64 predicted = plan["file_bytes"].toInteger();
        // Never worse than the best preset that fits.
        double bestPreset = 1e300;
        const bool bpw = size.endsWith("bpw");
        const double limit = bpw ? size.chopped(3).toDouble() : root["budget"].toObject()["file_bytes"].toDouble();
        for (const QJsonValue& preset : root["presets"].toArray()) {
            const QJsonObject p = preset.toObject();
            if (p["evaluated"].toBool() && (bpw ? p["bits_per_weight"].toDouble() : p["file_bytes"].toDouble()) <= limit)
                bestPreset = std::min(bestPreset, p["error"].toDouble());
        }
        QVERIFY(bestPreset < 1e300);
        QVERIFY(plan["error"].toDouble() <= bestPreset);
        QVERIFY(bpw ? plan["bits_per_weight"].toDouble() <= limit : double(predicted) <= limit);

        // The rules file is plain llama-quantize rules; converting with it gives the planned file.
        const QByteArray text = testsupport::readWholeFile(rules);
        QVERIFY(!text.contains('#'));
        const QString out = dir.filePath("planned.gguf");
        const auto convert = cli({"convert", fixturePath(model), out, "--type", plan["base_preset"].toString(), "--recipe", rules, "--quiet"});
        QVERIFY2(convert.exitCode == 0, qPrintable(convert.describe()));
        QCOMPARE(QFileInfo(out).size(), predicted);
        const auto recipe = cli({"recipe", out, "--json"});
        const QJsonArray layers = QJsonDocument::fromJson(recipe.out).object()["grid"].toObject()["layers"].toArray();
        const QJsonObject planned = plan["tensors"].toObject();
        int checked = 0;
        for (const QJsonValue& layer : layers)
            for (const QJsonValue& cell : layer.toObject()["cells"].toObject())
                if (planned.contains(cell.toObject()["tensor"].toString())) {
                    QCOMPARE(cell.toObject()["type"].toString(), planned[cell.toObject()["tensor"].toString()].toString());
                    ++checked;
                }
        QCOMPARE(checked, planned.size());
    }

    // plan --imatrix measures every choice as llama-quantize --imatrix makes it (importance-
    // weighted quantizers and errors), so the IQ types and presets become candidates; the
    // planner's guarantees hold, and the rules converted with the same imatrix fit the budget.
    void planWithAnImatrix_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("imatrix");
        QTest::addColumn<QString>("size");
        QTest::newRow("llama 0.8MB") << "tiny-llama-F32.gguf" << "llama.cpp/tiny-llama.imatrix.gguf" << "0.8MB";
        QTest::newRow("llama 2.6bpw") << "tiny-llama-F32.gguf" << "llama.cpp/tiny-llama.imatrix.gguf" << "2.6bpw";
        QTest::newRow("llama 1.2MB, legacy imatrix") << "tiny-llama-F32.gguf" << "llama.cpp/tiny-llama.imatrix.dat" << "1.2MB";
        QTest::newRow("moe 2MB") << "tiny-moe-F16.gguf" << "llama.cpp/tiny-moe.imatrix.gguf" << "2MB";
    }

    void planWithAnImatrix()
    {
        QFETCH(QString, model);
        QFETCH(QString, imatrix);
        QFETCH(QString, size);
        QTemporaryDir dir;
        const QString rules = dir.filePath("rules.txt");
        const auto run = cli({"plan", fixturePath(model), "--size", size, "--imatrix", fixturePath(imatrix), "-o", rules, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject root = QJsonDocument::fromJson(run.out).object();
        QVERIFY(root["weighted"].toBool());
        const QJsonObject plan = root["plan"].toObject();
        const bool bpw = size.endsWith("bpw");
        const double limit = bpw ? size.chopped(3).toDouble() : root["budget"].toObject()["file_bytes"].toDouble();
        double bestPreset = 1e300;
        QStringList evaluatedIq;
        for (const QJsonValue& preset : root["presets"].toArray()) {
            const QJsonObject p = preset.toObject();
            if (p["evaluated"].toBool() && p["preset"].toString().startsWith("IQ"))
                evaluatedIq << p["preset"].toString();
            if (p["evaluated"].toBool() && (bpw ? p["bits_per_weight"].toDouble() : p["file_bytes"].toDouble()) <= limit)
                bestPreset = std::min(bestPreset, p["error"].toDouble());
        }
        // Every IQ preset llama-quantize offers is measured with the importance weights.
        for (const char* iq : {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ3_XXS", "IQ3_XS", "IQ3_S", "IQ3_M", "IQ4_NL", "IQ4_XS"})
            QVERIFY2(evaluatedIq.contains(QString::fromLatin1(iq)), qPrintable(QString::fromLatin1(iq) + " not evaluated: " + evaluatedIq.join(',')));
        QVERIFY(bestPreset < 1e300);
        QVERIFY(plan["error"].toDouble() <= bestPreset);
        QVERIFY(bpw ? plan["bits_per_weight"].toDouble() <= limit : plan["file_bytes"].toDouble() <= limit);

        // Converting with the rules and the same imatrix stays within the budget, with the planned types.
        const QString out = dir.filePath("planned.gguf");
        const auto convert = cli({"convert", fixturePath(model), out, "--type", plan["base_preset"].toString(), "--recipe", rules, "--imatrix",
                                  fixturePath(imatrix), "--quiet"});
        QVERIFY2(convert.exitCode == 0, qPrintable(convert.describe()));
        QCOMPARE(QFileInfo(out).size(), plan["file_bytes"].toInteger());  // the quantize.imatrix.* keys counted exactly
        if (!bpw)
            QVERIFY(double(QFileInfo(out).size()) <= limit);
        const auto recipe = cli({"recipe", out, "--json"});
        const QJsonArray layers = QJsonDocument::fromJson(recipe.out).object()["grid"].toObject()["layers"].toArray();
        const QJsonObject planned = plan["tensors"].toObject();
        int checked = 0;
        for (const QJsonValue& layer : layers)
            for (const QJsonValue& cell : layer.toObject()["cells"].toObject())
                if (planned.contains(cell.toObject()["tensor"].toString())) {
                    QCOMPARE(cell.toObject()["type"].toString(), planned[cell.toObject()["tensor"].toString()].toString());
                    ++checked;
                }
        QCOMPARE(checked, planned.size());
    }

    // The sizes plan predicts with an imatrix are llama-quantize's: run where `public` names the
    // fixtures' llama.cpp folder with the path llama-quantize was given, every preset's size is
    // its file's size to the byte.
    void planPresetSizesWithAnImatrixAreLlamaQuantizes()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::link(fixturePath("llama.cpp"), dir.filePath("public")));
        const auto run = testsupport::runProgram(testsupport::cliPath(),
                                                 {"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1MB", "--rows", "2", "--imatrix",
                                                  "public/tiny-llama.imatrix.gguf", "--json"},
                                                 dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        int checked = 0;
        for (const QJsonValue& preset : QJsonDocument::fromJson(run.out).object()["presets"].toArray()) {
            const QJsonObject p = preset.toObject();
            const QFileInfo real(fixturePath("llama.cpp/tiny-llama-imat-" + p["preset"].toString() + ".gguf"));
            if (!real.exists())
                continue;
            QVERIFY2(p["evaluated"].toBool(), qPrintable(p["preset"].toString()));
            QVERIFY2(p["file_bytes"].toInteger() == real.size(), qPrintable(QStringLiteral("%1: predicted %2, llama-quantize wrote %3")
                                                                                  .arg(p["preset"].toString()).arg(p["file_bytes"].toInteger()).arg(real.size())));
            ++checked;
        }
        QVERIFY2(checked >= 20, qPrintable(QString::number(checked)));
    }

    void planWeightsTheErrorsOnlyWithAnImatrix()
    {
        const auto plain = cli({"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1.2MB", "--json"});
        const auto weighted = cli({"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1.2MB", "--json", "--imatrix",
                                   fixturePath("llama.cpp/tiny-llama.imatrix.gguf")});
        QVERIFY2(plain.exitCode == 0 && weighted.exitCode == 0, qPrintable(plain.describe() + weighted.describe()));
        const QJsonObject a = QJsonDocument::fromJson(plain.out).object();
        const QJsonObject b = QJsonDocument::fromJson(weighted.out).object();
        QVERIFY(!a["weighted"].toBool());
        QVERIFY(b["weighted"].toBool());
        auto presetNamed = [](const QJsonObject& root, const QString& name) {
            for (const QJsonValue& p : root["presets"].toArray())
                if (p.toObject()["preset"].toString() == name)
                    return p.toObject();
            return QJsonObject{};
        };
        // Without importance weights ggml cannot make IQ2_XXS: the preset is listed, not measured.
        QVERIFY(!presetNamed(a, "IQ2_XXS")["evaluated"].toBool());
        QVERIFY(!presetNamed(a, "IQ2_XXS")["why"].toString().isEmpty());
        QVERIFY(presetNamed(b, "IQ2_XXS")["evaluated"].toBool());
        // The same preset costs differently once weighted.
        QVERIFY(presetNamed(a, "Q4_K_M")["error"].toDouble() != presetNamed(b, "Q4_K_M")["error"].toDouble());
    }

    void planAndRecipeRefuseWhatIsNoImatrix()
    {
        for (const QString& bad : {fixturePath("tiny-llama-F32.gguf"), fixturePath("README.md"), fixturePath("does-not-exist.dat")}) {
            const auto plan = cli({"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1.2MB", "--imatrix", bad});
            QVERIFY2(plan.failedWithOneLine(), qPrintable(bad + ": " + plan.describe()));
            const auto recipe = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_M", "--imatrix", bad});
            QVERIFY2(recipe.failedWithOneLine(), qPrintable(bad + ": " + recipe.describe()));
        }
    }

    void hostileInputsAndOutputs()
    {
        // Every malformed fixture: one line, no crash, for the grid/audit and for a preset's recipe.
        for (const QString& bad : testsupport::fixtureNames("bad", "*.gguf")) {
            for (const QStringList& extra : {QStringList{}, QStringList{"--preset", "Q4_K_M", "--json"}}) {
                const auto run = cli(QStringList{"recipe", fixturePath("bad/" + bad)} + extra);
                QVERIFY2(run.failedWithOneLine(), qPrintable(bad + ": " + run.describe()));
            }
        }
        // Odd but valid files (unknown and retired types, scalars, empty tensors) open: never a crash.
        for (const QString& odd : testsupport::fixtureNames("odd", "*.gguf")) {
            const auto run = cli({"recipe", fixturePath("odd/" + odd)});
            QVERIFY2(run.finished && !run.crashed && (run.exitCode == 0 || run.failedWithOneLine()), qPrintable(odd + ": " + run.describe()));
            const auto plan = cli({"plan", fixturePath("odd/" + odd), "--size", "1GB", "--rows", "2"});
            QVERIFY2(plan.finished && !plan.crashed && (plan.exitCode == 0 || plan.failedWithOneLine()), qPrintable(odd + ": " + plan.describe()));
        }
        // The rules file can be a device, written in place.
        const auto toStdout = cli({"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1.2MB", "-o", "/dev/stdout"});
        QVERIFY2(toStdout.exitCode == 0, qPrintable(toStdout.describe()));
        QVERIFY(toStdout.out.startsWith("^output\\.weight$=q4_K\n"));  // the plan at 1.2MB by relative error
        // A rules file that is not a rules file.
        const auto notRules = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_M", "--tensor-type-file",
                                   fixturePath("tiny-llama-F32.gguf")});
        QVERIFY2(notRules.failedWithOneLine(), qPrintable(notRules.describe()));
    }

    void planRefusals()
    {
        for (const QStringList& arguments : {QStringList{"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "10kB"},
                                             QStringList{"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "4.2XB"},
                                             QStringList{"plan", fixturePath("tiny-llama-F32.gguf")},
                                             QStringList{"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1MB", "-o",
                                                         fixturePath("tiny-llama-F32.gguf")}}) {
            const auto run = cli(arguments);
            QVERIFY2(run.failedWithOneLine(), qPrintable(arguments.join(' ') + ": " + run.describe()));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliRecipe)
#include "tst_cli_recipe.moc"
