// `convert --preset` against llama-quantize on the architecture fixtures: every quantized file
// in every llama.cpp/arch/<folder>/manifest.json was made by llama-quantize from the folder's
// F32 model (its command is the model's `made_by`). The same command, spelled as a convert,
// must give the same tensors in the same order, of the same types, with the same bytes, and then
// the whole file byte for byte (its sha256 is in the manifest); `recipe --preset` must name the
// same types in the same order. The rows come from the manifests,
// so a folder added to the fixtures is checked without touching this suite.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "OrderedJson.h"
#include "core/types/GgmlType.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <optional>

using testsupport::fixturePath;

namespace {

constexpr auto kArchDir = "llama.cpp/arch";

// A llama-quantize command line, "[--opt V ...] IN OUT PRESET [THREADS]", read into its parts.
// The paths in the manifests start with "public/<folder>/", this folder.
struct QuantizeCommand {
    QString input;
    QString preset;
    QString threads;
    QStringList options;  // --tensor-type, --token-embedding-type, ... with their values
};

std::optional<QuantizeCommand> readCommand(const QString& folder, const QString& command)
{
    QStringList words = command.split(' ', Qt::SkipEmptyParts);
    if (words.isEmpty() || (words.first() != "llama-quantize" && words.first() != "quantize"))
        return std::nullopt;
    words.removeFirst();
    QuantizeCommand parts;
    QStringList positionals;
    for (int i = 0; i < words.size(); ++i) {
        if (words[i].startsWith("--")) {
            if (i + 1 >= words.size())
                return std::nullopt;
            parts.options << words[i] << words[i + 1];
            ++i;
        } else {
            positionals << words[i];
        }
    }
    if (positionals.size() < 3 || !positionals[0].startsWith("public/" + folder + "/"))
        return std::nullopt;
    parts.input = fixturePath(QString(kArchDir) + "/" + positionals[0].section('/', 1));
    parts.preset = positionals[2];
    if (positionals.size() > 3)
        parts.threads = positionals[3];
    return parts;
}

QString describeTensor(const gguf::TensorInfo& tensor)
{
    return QStringLiteral("%1 %2 [%3, %4, %5, %6]")
        .arg(QString::fromUtf8(tensor.name.data(), qsizetype(tensor.name.size())), QString::fromStdString(gguf::typeName(tensor.typeId)))
        .arg(tensor.ne[0])
        .arg(tensor.ne[1])
        .arg(tensor.ne[2])
        .arg(tensor.ne[3]);
}

}  // namespace

class TestCliPresetArch : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    void convertEqualsLlamaQuantize_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("sha256");
        QTest::addColumn<QStringList>("types");  // "name=type" in the file's order
        const QStringList folders = QDir(fixturePath(kArchDir)).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY2(!folders.isEmpty(), qPrintable(fixturePath(kArchDir)));
        for (const QString& folder : folders) {
            const QByteArray text = testsupport::readWholeFile(fixturePath(QString(kArchDir) + "/" + folder + "/manifest.json"));
            QVERIFY2(!text.isEmpty(), qPrintable(folder + ": no manifest.json"));
            int quantized = 0;
            for (const QJsonValue& value : QJsonDocument::fromJson(text).object()["models"].toArray()) {
                const QJsonObject model = value.toObject();
                const QString command = model["made_by"].toString();
                // The first folders name the tool llama-quantize, the newest ones "quantize".
                if (!command.startsWith("llama-quantize ") && !command.startsWith("quantize "))
                    continue;
                const QString file = model["file"].toString();
                QStringList types;
                for (const QJsonValue& tensor : model["tensors"].toArray())
                    types << tensor["name"].toString() + "=" + tensor["type"].toString().toLower();
                QTest::newRow(qPrintable(folder + "/" + file)) << folder << file << command << model["sha256"].toString() << types;
                ++quantized;
            }
            QVERIFY2(quantized >= 2, qPrintable(folder + ": fewer than two llama-quantize files (Q8_0 and Q4_K_M)"));
        }
    }

    void convertEqualsLlamaQuantize()
    {
        QFETCH(QString, folder);
        QFETCH(QString, file);
        QFETCH(QString, command);
        QFETCH(QString, sha256);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString output = dir.filePath(file);
        const auto parts = readCommand(folder, command);
        QVERIFY2(parts, qPrintable("cannot read the command: " + command));
        QStringList arguments{"convert", parts->input, output, "--preset", parts->preset};
        if (!parts->threads.isEmpty())
            arguments << "--threads" << parts->threads;
        arguments << parts->options << "--quiet";
        const auto run = testsupport::runProgram(testsupport::cliPath(), arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(arguments.join(' ') + "\n" + run.describe()));

        const QString expectedPath = fixturePath(QString(kArchDir) + "/" + folder + "/" + file);
        const auto ours = testsupport::openModelAt(output);
        const auto theirs = testsupport::openModelAt(expectedPath);
        QVERIFY(ours && theirs);
        const auto& ourTensors = ours->tensors();
        const auto& theirTensors = theirs->tensors();
        QCOMPARE(ourTensors.size(), theirTensors.size());
        for (std::size_t i = 0; i < ourTensors.size(); ++i) {
            const gguf::TensorInfo& a = ourTensors[i];
            const gguf::TensorInfo& b = theirTensors[i];
            QCOMPARE(describeTensor(a), describeTensor(b));
            QCOMPARE(a.nbytes, b.nbytes);
            QVERIFY2(std::memcmp(a.data, b.data, a.nbytes) == 0, qPrintable(describeTensor(a) + ": the data differs"));
        }
        // Tensor for tensor equal; the metadata and layout too, so the whole file.
        const QByteArray bytes = testsupport::readWholeFile(output);
        QCOMPARE(QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()), sha256);
    }

    // `recipe --preset` with the same options names the types llama-quantize gave, in its order.
    void recipeEqualsLlamaQuantize_data() { convertEqualsLlamaQuantize_data(); }

    void recipeEqualsLlamaQuantize()
    {
        QFETCH(QString, folder);
        QFETCH(QString, command);
        QFETCH(QStringList, types);
        const auto parts = readCommand(folder, command);
        QVERIFY2(parts, qPrintable("cannot read the command: " + command));
        const QStringList arguments = QStringList{"recipe", parts->input, "--preset", parts->preset} + parts->options << "--json";
        const auto run = testsupport::runProgram(testsupport::cliPath(), arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(arguments.join(' ') + "\n" + run.describe()));
        QString error;
        const auto root = testsupport::parseOrderedJson(run.out, &error);
        QVERIFY2(root && root->member("tensors"), qPrintable(error));
        QStringList ours;
        for (const auto& [name, type] : root->member("tensors")->members)
            ours << QString::fromUtf8(name) + "=" + QString::fromUtf8(type.text).toLower();
        QCOMPARE(ours, types);
    }
};

QTEST_APPLESS_MAIN(TestCliPresetArch)
#include "tst_cli_preset_arch.moc"
