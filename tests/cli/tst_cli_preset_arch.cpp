// `convert --preset` against llama-quantize on the architecture fixtures: every quantized file
// in every llama.cpp/arch/<folder>/manifest.json was made by llama-quantize from the folder's
// F32 model (its command is the model's `made_by`). The same command, spelled as a convert,
// must give the same tensors in the same order, of the same types, with the same bytes, and then
// the whole file byte for byte (its sha256 is in the manifest). The rows come from the manifests,
// so a folder added to the fixtures is checked without touching this suite.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "types/GgmlType.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using testsupport::fixturePath;

namespace {

constexpr auto kArchDir = "llama.cpp/arch";

// A llama-quantize command line as convert's arguments: "[--opt V ...] IN OUT PRESET [THREADS]"
// becomes "convert IN OUT --preset PRESET --opt V ...". The paths in the manifests start with
// "public/<folder>/", this folder. Empty when the command has another form.
QStringList convertArguments(const QString& folder, const QString& command, const QString& output)
{
    QStringList words = command.split(' ', Qt::SkipEmptyParts);
    if (words.isEmpty() || words.takeFirst() != "llama-quantize")
        return {};
    QStringList options;
    QStringList positionals;
    for (int i = 0; i < words.size(); ++i) {
        if (words[i].startsWith("--")) {
            if (i + 1 >= words.size())
                return {};
            options << words[i] << words[i + 1];
            ++i;
        } else {
            positionals << words[i];
        }
    }
    if (positionals.size() < 3 || !positionals[0].startsWith("public/" + folder + "/"))
        return {};
    const QString input = fixturePath(QString(kArchDir) + "/" + positionals[0].section('/', 1));
    QStringList arguments{"convert", input, output, "--preset", positionals[2]};
    if (positionals.size() > 3)
        arguments << "--threads" << positionals[3];
    arguments << options << "--quiet";
    return arguments;
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
        const QStringList folders = QDir(fixturePath(kArchDir)).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY2(!folders.isEmpty(), qPrintable(fixturePath(kArchDir)));
        for (const QString& folder : folders) {
            const QByteArray text = testsupport::readWholeFile(fixturePath(QString(kArchDir) + "/" + folder + "/manifest.json"));
            QVERIFY2(!text.isEmpty(), qPrintable(folder + ": no manifest.json"));
            int quantized = 0;
            for (const QJsonValue& value : QJsonDocument::fromJson(text).object()["models"].toArray()) {
                const QJsonObject model = value.toObject();
                const QString command = model["made_by"].toString();
                if (!command.startsWith("llama-quantize "))
                    continue;
                const QString file = model["file"].toString();
                QTest::newRow(qPrintable(folder + "/" + file)) << folder << file << command << model["sha256"].toString();
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
        const QStringList arguments = convertArguments(folder, command, output);
        QVERIFY2(!arguments.isEmpty(), qPrintable("cannot read the command: " + command));
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
};

QTEST_APPLESS_MAIN(TestCliPresetArch)
#include "tst_cli_preset_arch.moc"
