// Names and warnings that must not mislead: --type always names a ggml type and --preset a
// llama-quantize preset, in every command (a name that is both is refused where it would be
// read either way); an importance matrix that leaves some of the model's matrices out, or names
// tensors the model does not have, is reported on stderr (and the JSON) by every command that
// takes one, as llama-quantize names them, and one of another model (no entry names a tensor of
// the model, or a row of another width) is refused by each with the reason; and simulating a type ggml makes only with importance weights over a whole model
// skips, by name, the tensors the matrix has no entry for and compares the rest.

#include "CliRunner.h"
#include "Fixtures.h"
#include "LegacyImatrixFile.h"
#include "OpenFixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>

using testsupport::fixturePath;

namespace {

testsupport::CliRun cli(const QStringList& arguments)
{
    return testsupport::runProgram(testsupport::cliPath(), arguments);
}

const QString kTokens = QStringLiteral("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16");

// Every command that takes --imatrix, on tiny-llama, with OUT for an output path.
void addImatrixCommandRows(const QString& model, const std::function<void(const char*, const QStringList&)>& row)
{
    row("convert --type", {"convert", model, "OUT", "--type", "q4_K", "--quiet"});
    row("convert --preset", {"convert", model, "OUT", "--preset", "Q4_K_M", "--quiet"});
    row("compare --simulate", {"compare", model, "--simulate", "q4_K"});
    row("kld --simulate", {"kld", model, "--tokens", kTokens, "--simulate", "Q4_K_M"});
    row("plan", {"plan", model, "--size", "1.2MB", "--rows", "4"});
    row("scan", {"scan", model, "--tokens", kTokens, "--chunk", "16", "--types", "q8_0", "--layers", "1", "--quiet", "-o", "OUT"});
    row("recipe --preset", {"recipe", model, "--preset", "Q4_K_M"});
}

QString typeOf(const QString& file, const char* tensor)
{
    const auto model = testsupport::openModelAt(file);
    const gguf::TensorInfo* info = model ? model->findTensor(tensor) : nullptr;
    return info ? QString::fromStdString(gguf::typeName(info->typeId)) : QString();
}

}  // namespace

class TestCliNamesAndWarnings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    // tiny-moe's imatrix on tiny-llama: its attention entries fit, its expert and router entries
    // match nothing, so 8 of tiny-llama's 16 matrices (the six dense ffn ones, token_embd,
    // output) get no importance weights. Every command says so, and that 8 of the matrix's 16
    // entries go unused; it goes on, as llama-quantize does. With tiny-llama's own matrix none
    // of it is said.
    void uncoveredMatricesAreNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("jsonPath");  // "a/b" in the JSON holding uncovered_count; empty: no JSON
        const QString model = fixturePath("tiny-llama-F32.gguf");
        QTest::newRow("convert --preset") << QStringList{"convert", model, "OUT", "--preset", "Q4_K_M", "--quiet"} << QString();
        QTest::newRow("convert --type") << QStringList{"convert", model, "OUT", "--type", "q4_K", "--quiet"} << QString();
        QTest::newRow("recipe --preset") << QStringList{"recipe", model, "--preset", "Q4_K_M", "--json"} << QString();
        QTest::newRow("plan") << QStringList{"plan", model, "--size", "1.2MB", "--rows", "4", "--json"} << "imatrix_coverage";
        QTest::newRow("kld") << QStringList{"kld", model, "--tokens", kTokens, "--type", "q8_0", "--json"} << "imatrix_coverage";
        QTest::newRow("compare") << QStringList{"compare", model, "--type", "q8_0", "--json"} << "importance_matrix";
        QTest::newRow("scan") << QStringList{"scan", model, "--tokens", kTokens, "--chunk", "16", "--types", "q8_0", "--layers", "1", "--quiet", "-o", "OUT"}
                              << QString();
    }

    void uncoveredMatricesAreNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, jsonPath);
        QTemporaryDir dir;
        arguments.replaceInStrings(QRegularExpression("^OUT$"), dir.filePath("out.gguf"));

        const auto mismatched = cli(arguments + QStringList{"--imatrix", fixturePath("llama.cpp/tiny-moe.imatrix.gguf")});
        QVERIFY2(mismatched.exitCode == 0, qPrintable(mismatched.describe()));
        QVERIFY2(mismatched.err.contains("warning: the importance matrix has no entry for 8 of the model's 16 matrices"),
                 qPrintable(mismatched.describe()));
        QVERIFY(mismatched.err.contains("blk.0.ffn_down.weight"));
        QCOMPARE(mismatched.err.count("the importance matrix has no entry"), 1);  // one line: a count and the first few names
        QVERIFY2(mismatched.err.contains("warning: the importance matrix may be of another model: 8 of its 16 entries name no tensor of this "
                                         "model (blk.0.ffn_down_exps.weight, blk.0.ffn_gate_exps.weight, blk.0.ffn_gate_inp.weight, "
                                         "blk.0.ffn_up_exps.weight, ... (4 more)): they are unused"),
                 qPrintable(mismatched.describe()));
        if (!jsonPath.isEmpty()) {
            const QJsonObject coverage = QJsonDocument::fromJson(mismatched.out).object()[jsonPath].toObject();
            QCOMPARE(coverage["uncovered_count"].toInt(), 8);
            QCOMPARE(coverage["matrices"].toInt(), 16);
            QVERIFY(coverage["uncovered"].toArray().contains(QStringLiteral("blk.1.ffn_up.weight")));
        }

        const auto matching = cli(arguments + QStringList{"--imatrix", fixturePath("llama.cpp/tiny-llama.imatrix.gguf")});
        QVERIFY2(matching.exitCode == 0, qPrintable(matching.describe()));
        QVERIFY2(!matching.err.contains("no entry") && !matching.err.contains("another model"), qPrintable(matching.describe()));
        if (!jsonPath.isEmpty()) {
            // token_embd and output, which llama-imatrix leaves out by default: listed, not warned about.
            const QJsonObject coverage = QJsonDocument::fromJson(matching.out).object()[jsonPath].toObject();
            QCOMPARE(coverage["uncovered_count"].toInt(), 2);
        }
    }

    // An importance matrix of another model is refused by every command that takes one, with
    // the reason, before anything is computed or written: one whose entries name none of the
    // model's tensors (accepted before, every tensor then quantized blind with a warning), and
    // one whose entry has rows of another width than its tensor (llama-quantize: "imatrix size
    // 128 is different from tensor size 256"), named with both widths.
    void anotherModelsImatrixIsRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("imatrix");  // "none in common" or "narrow"
        QTest::addColumn<QString>("reason");
        const QString none = QStringLiteral("this importance matrix is of another model: none of its 2 entries names a tensor of this model");
        const QString narrow = QStringLiteral("the importance matrix does not fit the model: error: blk.0.attn_q.weight: shape: column count 128 "
                                              "differs from the tensor's ne[0] = 256");
        addImatrixCommandRows(fixturePath("tiny-llama-F32.gguf"), [&](const char* name, const QStringList& arguments) {
            QTest::newRow(qPrintable(QStringLiteral("%1, none in common").arg(QLatin1String(name)))) << arguments << "none in common" << none;
            QTest::newRow(qPrintable(QStringLiteral("%1, narrow").arg(QLatin1String(name)))) << arguments << "narrow" << narrow;
        });
    }

    void anotherModelsImatrixIsRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, imatrix);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        arguments.replaceInStrings(QRegularExpression("^OUT$"), out);
        // tiny-moe's router and expert tensors, which tiny-llama does not have; or tiny-llama's
        // attn_q with 128 columns where its rows have 256.
        const QString path = imatrix == QLatin1String("narrow")
                               ? testsupport::writeLegacyImatrix(dir, "narrow.imatrix.dat", {{"blk.0.attn_q.weight", 128}})
                               : testsupport::writeLegacyImatrix(dir, "moe.imatrix.dat", {{"blk.0.ffn_gate_inp.weight", 256}, {"blk.0.ffn_up_exps.weight", 256 * 8}});
        QVERIFY(!path.isEmpty());
        const auto run = cli(arguments + QStringList{"--imatrix", path});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(reason.toUtf8()), qPrintable(run.describe()));
        QVERIFY(run.out.isEmpty());
        QVERIFY(!QFileInfo::exists(out));
    }

    // An IQ type over the whole model with an imatrix: token_embd and output have no entry and
    // are skipped by name; every other matrix is compared.
    void compareSimulatesAnIqTypeOverTheWholeModel()
    {
        const QStringList arguments{"compare", fixturePath("tiny-llama-F32.gguf"), "--simulate", "iq2_xxs", "--imatrix",
                                    fixturePath("llama.cpp/tiny-llama.imatrix.gguf")};
        const auto run = cli(arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.out.contains("skipped: iq2_xxs needs importance weights and the importance matrix has no entry for token_embd.weight"));
        QVERIFY(run.out.contains("the importance matrix has no entry for output.weight"));
        QVERIFY(run.out.contains("2 tensor(s) skipped"));
        const auto json = cli(arguments + QStringList{"--json"});
        QVERIFY2(json.exitCode == 0, qPrintable(json.describe()));
        QVERIFY(json.out.contains("\"iq2_xxs\""));
        // The 14 block matrices (and the 1-D tensors, kept) are in the figures.
        QVERIFY2(run.out.contains("(19 tensors)"), qPrintable(run.out));
    }

    // compare --preset quantizes the reference as llama-quantize would: the figures equal those
    // of llama-quantize's own file, with and without the imatrix.
    void comparePresetEqualsTheRealFile_data()
    {
        QTest::addColumn<QString>("real");
        QTest::addColumn<QString>("imatrix");
        QTest::newRow("Q4_K_M") << "llama.cpp/tiny-llama-mix-Q4_K_M.gguf" << QString();
        QTest::newRow("Q4_K_M, imatrix") << "llama.cpp/tiny-llama-imat-Q4_K_M.gguf" << "llama.cpp/tiny-llama.imatrix.gguf";
        QTest::newRow("IQ2_XXS, imatrix") << "llama.cpp/tiny-llama-imat-IQ2_XXS.gguf" << "llama.cpp/tiny-llama.imatrix.gguf";
    }

    void comparePresetEqualsTheRealFile()
    {
        QFETCH(QString, real);
        QFETCH(QString, imatrix);
        const QString preset = real.section('-', -1).section('.', 0, 0);
        QStringList arguments{"compare", fixturePath("tiny-llama-F32.gguf"), fixturePath(real), "--preset", preset, "--json"};
        if (!imatrix.isEmpty())
            arguments << "--imatrix" << fixturePath(imatrix);
        const auto run = cli(arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QJsonArray columns = QJsonDocument::fromJson(run.out).object()["columns"].toArray();
        QCOMPARE(columns.size(), 2);
        QCOMPARE(columns[1].toObject()["preset"].toString(), preset);
        QCOMPARE(columns[1].toObject()["tensors"].toInt(), columns[0].toObject()["tensors"].toInt());
        QCOMPARE(columns[1].toObject()["totals"].toObject(), columns[0].toObject()["totals"].toObject());
    }

    // The same in kld: token_embd and output stay as stored, named; the run goes on.
    void kldSimulatesAnIqTypeOverTheWholeModel()
    {
        const auto run = cli({"kld", fixturePath("tiny-llama-F32.gguf"), "--tokens", kTokens, "--type", "iq2_xxs", "--imatrix",
                              fixturePath("llama.cpp/tiny-llama.imatrix.gguf"), "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.err.contains("kept as stored"));
        QVERIFY(run.err.contains("token_embd.weight") && run.err.contains("output.weight"));
        QVERIFY(QJsonDocument::fromJson(run.out).object()["models"].toArray()[0].toObject()["kld"].toObject()["mean"].toDouble() > 0.0);
    }

    void oneMeaningPerName()
    {
        const QString model = fixturePath("tiny-llama-F32.gguf");
        // kld: --type the type, --preset the preset, whatever the letter case.
        const auto asType = cli({"kld", model, "--tokens", kTokens, "--type", "IQ4_NL", "--json"});
        const auto asPreset = cli({"kld", model, "--tokens", kTokens, "--preset", "iq4_nl", "--json"});
        QVERIFY2(asType.exitCode == 0 && asPreset.exitCode == 0, qPrintable(asType.describe() + asPreset.describe()));
        QCOMPARE(QJsonDocument::fromJson(asType.out).object()["models"].toArray()[0].toObject()["label"].toString(), QStringLiteral("iq4_nl (simulated)"));
        QCOMPARE(QJsonDocument::fromJson(asPreset.out).object()["models"].toArray()[0].toObject()["label"].toString(), QStringLiteral("IQ4_NL (simulated)"));
        // The older --simulate, where a name both know is refused unless spelt as ggml spells the type.
        const auto ambiguous = cli({"kld", model, "--tokens", kTokens, "--simulate", "IQ4_NL"});
        QVERIFY2(ambiguous.failedWithOneLine(), qPrintable(ambiguous.describe()));
        QVERIFY(ambiguous.err.contains("--type iq4_nl") && ambiguous.err.contains("--preset IQ4_NL"));
        const auto plainSpellings = cli({"kld", model, "--tokens", kTokens, "--simulate", "iq4_nl,Q4_K_M", "--json"});
        QVERIFY2(plainSpellings.exitCode == 0, qPrintable(plainSpellings.describe()));
        const QJsonArray models = QJsonDocument::fromJson(plainSpellings.out).object()["models"].toArray();
        QCOMPARE(models[1].toObject()["label"].toString(), QStringLiteral("Q4_K_M (simulated)"));
        // A preset where a type is asked for, and the reverse, name the right option.
        const auto presetAsType = cli({"kld", model, "--tokens", kTokens, "--type", "Q4_K_M"});
        QVERIFY2(presetAsType.failedWithOneLine() && presetAsType.err.contains("unknown type"), qPrintable(presetAsType.describe()));

        // compare: --type, as the older --simulate.
        const auto compare = cli({"compare", model, "--type", "Q8_0"});
        QVERIFY2(compare.exitCode == 0 && compare.out.contains("q8_0 (simulated)"), qPrintable(compare.describe()));

        // convert: --type IQ4_NL is iq4_nl everywhere; --preset IQ4_NL is llama-quantize's mix (output q6_K).
        QTemporaryDir dir;
        const auto typed = cli({"convert", model, dir.filePath("t.gguf"), "--type", "IQ4_NL", "--quiet"});
        const auto preset = cli({"convert", model, dir.filePath("p.gguf"), "--preset", "IQ4_NL", "--quiet"});
        QVERIFY2(typed.exitCode == 0 && preset.exitCode == 0, qPrintable(typed.describe() + preset.describe()));
        QCOMPARE(typeOf(dir.filePath("t.gguf"), "output.weight"), QStringLiteral("iq4_nl"));
        QCOMPARE(typeOf(dir.filePath("p.gguf"), "output.weight"), QStringLiteral("q6_K"));

        // The rule is in the help of each command that takes both kinds of names.
        for (const char* command : {"convert", "kld"}) {
            const auto help = cli({command, "--help"});
            QVERIFY2(help.out.contains("--type names a ggml type") || help.out.contains("--type names ggml types"), command);
            QVERIFY2(help.out.contains("--preset"), command);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliNamesAndWarnings)
#include "tst_cli_names_and_warnings.moc"
