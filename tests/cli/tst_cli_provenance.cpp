// `recipe FILE --source SOURCE [--imatrix I]` answers "is this stock llama-quantize output?"
// exactly: "identical" for every file llama-quantize made among the fixtures (the llama.cpp
// folder, read from each file's log, and every llama.cpp/arch folder, read from its manifest),
// each given its source, its imatrix and its options; and for a copy with one byte of one
// tensor flipped, or a file of other types, it names that tensor. The rows come from the
// fixtures, so a fixture added later is checked without touching this suite.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OpenFixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::fixturePath;

namespace {

testsupport::CliRun cli(const QStringList& arguments)
{
    return testsupport::runProgram(testsupport::cliPath(), arguments);
}

// "llama-quantize [--opt V ...] IN OUT PRESET [THREADS]" as `recipe OUT --source IN` arguments:
// the paths that start with "public/" are in `folder` of the fixtures, the others ("fixtures/...")
// in the fixtures' top folder.
QStringList checkArguments(const QString& folder, const QString& command, const QString& file, QString& preset)
{
    QStringList words = command.split(' ', Qt::SkipEmptyParts);
    // The logs' commands start "+ llama-quantize", the manifests' "llama-quantize".
    while (!words.isEmpty() && (words.front() == "+" || words.front().endsWith("llama-quantize")))
        words.pop_front();
    QStringList options;
    QStringList positionals;
    for (int i = 0; i < words.size(); ++i) {
        if (words[i].startsWith("--") && i + 1 < words.size()) {
            const QString value = words[i + 1].startsWith("public/") ? fixturePath(folder + "/" + words[i + 1].section('/', 1))
                                                                    : words[i + 1];
            options << words[i] << value;
            ++i;
        } else {
            positionals << words[i];
        }
    }
    if (positionals.size() < 3)
        return {};
    preset = positionals[2];
    const QString source = positionals[0].startsWith("public/") ? fixturePath(folder + "/" + positionals[0].section('/', 1))
                                                                : fixturePath(positionals[0].section('/', -1));
    return QStringList{"recipe", file, "--source", source} + options << "--json";
}

QJsonObject jsonOf(const testsupport::CliRun& run)
{
    return QJsonDocument::fromJson(run.out).object();
}

}  // namespace

class TestCliProvenance : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    void identicalForEveryLlamaQuantizeFixture_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("preset");
        int rows = 0;
        // The llama.cpp folder: each output's log starts with its command.
        const QStringList outputs = QDir(fixturePath("llama.cpp")).entryList({"tiny-*.gguf"}, QDir::Files, QDir::Name);
        for (const QString& name : outputs) {
            if (name.contains(".imatrix."))
                continue;
            const QByteArray log = testsupport::readWholeFile(fixturePath("llama.cpp/" + name + ".log"));
            QString preset;
            const QStringList arguments = checkArguments("llama.cpp", QString::fromUtf8(log.left(log.indexOf('\n'))),
                                                         fixturePath("llama.cpp/" + name), preset);
            QVERIFY2(!arguments.isEmpty(), qPrintable(name + ": cannot read the command in its log"));
            QTest::newRow(qPrintable(name)) << arguments << preset;
            ++rows;
        }
        // Every architecture folder: the manifest holds each model's command.
        const QStringList folders = QDir(fixturePath("llama.cpp/arch")).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& folder : folders) {
            const QString dir = "llama.cpp/arch/" + folder;
            const QJsonObject manifest = QJsonDocument::fromJson(testsupport::readWholeFile(fixturePath(dir + "/manifest.json"))).object();
            for (const QJsonValue& value : manifest["models"].toArray()) {
                const QString command = value["made_by"].toString();
                if (!command.startsWith("llama-quantize "))
                    continue;
                QString preset;
                const QStringList arguments = checkArguments("llama.cpp/arch", command, fixturePath(dir + "/" + value["file"].toString()), preset);
                QVERIFY2(!arguments.isEmpty(), qPrintable(folder + ": cannot read " + command));
                QTest::newRow(qPrintable(folder + "/" + value["file"].toString())) << arguments << preset;
                ++rows;
            }
        }
        QVERIFY2(rows >= 60, qPrintable(QString::number(rows) + " llama-quantize outputs among the fixtures"));
    }

    void identicalForEveryLlamaQuantizeFixture()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, preset);
        const auto run = cli(arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(arguments.join(' ') + "\n" + run.describe()));
        const QJsonObject root = jsonOf(run);
        QCOMPARE(root["identical"].toBool(), true);
        QVERIFY(root["first_difference"].isNull());
        QCOMPARE(root["preset"].toString().toUpper(), preset.toUpper());
        QCOMPARE(root["preset_from"].toString(), QStringLiteral("general.file_type"));
        QVERIFY(root["tensors"].toInt() > 0);
        QCOMPARE(root["tensors_compared"].toInt(), root["tensors"].toInt());
        QCOMPARE(root["bytes_compared"].toInteger(), [&] {
            qint64 bytes = 0;
            const auto model = testsupport::openModelAt(arguments[1]);
            for (const gguf::TensorInfo& tensor : model->tensors())
                bytes += qint64(tensor.nbytes);
            return bytes;
        }());
    }

    // One byte of one tensor flipped in a copy: that tensor, and where in it.
    void namesTheTensorWithAFlippedByte_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("imatrix");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("byte");
        QTest::newRow("q4_K matrix") << "llama.cpp/tiny-llama-mix-Q4_K_M.gguf" << "tiny-llama-F32.gguf" << QString() << "blk.1.ffn_up.weight" << 5000;
        QTest::newRow("f32 norm (copied)") << "llama.cpp/tiny-llama-mix-Q4_K_M.gguf" << "tiny-llama-F32.gguf" << QString()
                                           << "blk.0.attn_norm.weight" << 3;
        QTest::newRow("expert with imatrix") << "llama.cpp/tiny-moe-imat-Q4_K_M.gguf" << "tiny-moe-F16.gguf"
                                             << "llama.cpp/tiny-moe.imatrix.gguf" << "blk.1.ffn_down_exps.weight" << 70000;
    }

    void namesTheTensorWithAFlippedByte()
    {
        QFETCH(QString, file);
        QFETCH(QString, source);
        QFETCH(QString, imatrix);
        QFETCH(QString, tensor);
        QFETCH(int, byte);
        QTemporaryDir dir;
        const QString copy = dir.filePath("changed.gguf");
        QVERIFY(QFile::copy(fixturePath(file), copy));
        QVERIFY(QFile::setPermissions(copy, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        qint64 at = 0;
        qint64 rowBytes = 0;
        {
            const auto model = testsupport::openModelAt(copy);
            QVERIFY(model);
            const gguf::TensorInfo* info = model->findTensor(tensor.toStdString());
            QVERIFY(info && quint64(byte) < info->nbytes);
            at = qint64(info->fileOffset) + byte;
            rowBytes = qint64(info->rowBytes());
        }
        QFile out(copy);
        QVERIFY(out.open(QIODevice::ReadWrite));
        QVERIFY(out.seek(at));
        char c = 0;
        QVERIFY(out.getChar(&c));
        QVERIFY(out.seek(at));
        QVERIFY(out.putChar(char(c ^ 0x10)));
        out.close();

        QStringList arguments{"recipe", copy, "--source", fixturePath(source), "--json"};
        if (!imatrix.isEmpty())
            arguments << "--imatrix" << fixturePath(imatrix);
        const auto run = cli(arguments);
        QVERIFY2(run.exitCode == 3, qPrintable(run.describe()));
        const QJsonObject root = jsonOf(run);
        QCOMPARE(root["identical"].toBool(), false);
        const QJsonObject first = root["first_difference"].toObject();
        QCOMPARE(first["tensor"].toString(), tensor);
        QCOMPARE(first["kind"].toString(), QStringLiteral("data"));
        QCOMPARE(first["byte_offset"].toInteger(), qint64(byte));
        QCOMPARE(first["row"].toInteger(), qint64(byte) / rowBytes);

        // In words too, and the exit status says it without --json.
        arguments.removeAll("--json");
        const auto text = cli(arguments);
        QCOMPARE(text.exitCode, 3);
        QVERIFY2(text.out.contains("not identical: " + tensor.toUtf8()), qPrintable(text.describe()));
    }

    // Other types: the first tensor llama-quantize would type otherwise, before any byte is made.
    void namesTheFirstTensorOfAnotherType()
    {
        // The pure Q4_K fixture says Q4_K_M; llama-quantize gives output.weight q6_K (its first tensor).
        const auto run = cli({"recipe", fixturePath("tiny-llama-Q4_K.gguf"), "--source", fixturePath("tiny-llama-F32.gguf"), "--json"});
        QVERIFY2(run.exitCode == 3, qPrintable(run.describe()));
        const QJsonObject first = jsonOf(run)["first_difference"].toObject();
        QCOMPARE(first["tensor"].toString(), QStringLiteral("output.weight"));
        QCOMPARE(first["kind"].toString(), QStringLiteral("type"));
        QCOMPARE(first["file_type"].toString(), QStringLiteral("q4_K"));
        QCOMPARE(first["llama_quantize_type"].toString(), QStringLiteral("q6_K"));
        QCOMPARE(jsonOf(run)["type_differences"].toInt(), 3);
        QCOMPARE(jsonOf(run)["tensors_compared"].toInt(), 0);

        // Checked against another preset than its label: the named one, and the first tensor it types otherwise.
        const auto asQ8 = cli({"recipe", fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf"), "--source", fixturePath("tiny-llama-F32.gguf"),
                               "--preset", "Q8_0", "--json"});
        QCOMPARE(asQ8.exitCode, 3);
        QCOMPARE(jsonOf(asQ8)["preset"].toString(), QStringLiteral("Q8_0"));
        QCOMPARE(jsonOf(asQ8)["preset_from"].toString(), QStringLiteral("given"));
        QCOMPARE(jsonOf(asQ8)["first_difference"].toObject()["tensor"].toString(), QStringLiteral("output.weight"));
    }

    // Made with an imatrix, checked without it (and the reverse): the first weighted tensor
    // differs, and the file's own record of an imatrix is pointed at.
    void theImatrixMatters()
    {
        const auto without = cli({"recipe", fixturePath("llama.cpp/tiny-llama-imat-Q4_K_M.gguf"), "--source",
                                  fixturePath("tiny-llama-F32.gguf"), "--json"});
        QVERIFY2(without.exitCode == 3, qPrintable(without.describe()));
        const QJsonObject root = jsonOf(without);
        QCOMPARE(root["first_difference"].toObject()["tensor"].toString(), QStringLiteral("blk.0.attn_k.weight"));
        QVERIFY(root["hint"].toString().contains("--imatrix"));
        QCOMPARE(root["tensors_compared"].toInt(), 3);  // output, output_norm and token_embd have no imatrix entry

        const auto with = cli({"recipe", fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf"), "--source", fixturePath("tiny-llama-F32.gguf"),
                               "--imatrix", fixturePath("llama.cpp/tiny-llama.imatrix.gguf"), "--json"});
        QCOMPARE(with.exitCode, 3);
        QVERIFY(jsonOf(with)["hint"].toString().contains("without --imatrix"));
    }

    void cannotCheckGivesOneLine()
    {
        // A preset llama-quantize refuses without an imatrix, an unknown preset, a source that is no file.
        const QList<QStringList> cases = {
            {"recipe", fixturePath("llama.cpp/tiny-llama-imat-Q2_K_S.gguf"), "--source", fixturePath("tiny-llama-F32.gguf")},
            {"recipe", fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf"), "--source", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q9_X"},
            {"recipe", fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf"), "--source", fixturePath("does-not-exist.gguf")},
        };
        for (const QStringList& arguments : cases) {
            const auto run = cli(arguments);
            QVERIFY2(run.failedWithOneLine() && run.exitCode != 3, qPrintable(arguments.join(' ') + "\n" + run.describe()));
        }
        // A source of another model is no crash and no "identical": its tensors differ.
        const auto other = cli({"recipe", fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf"), "--source", fixturePath("tiny-moe-F16.gguf"),
                                "--json"});
        QVERIFY2(other.exitCode == 3, qPrintable(other.describe()));
        QVERIFY(!jsonOf(other)["first_difference"].toObject()["tensor"].toString().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliProvenance)
#include "tst_cli_provenance.moc"
