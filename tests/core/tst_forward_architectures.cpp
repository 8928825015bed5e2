// The forward pass of every architecture it supports against llama.cpp's own outputs
// (fixtures/llama.cpp/arch/<folder>/, made by llama.cpp at 80fb11a with an F32 KV cache, flash
// attention off, one thread): for each folder whose architecture has a block description,
//  - the F32 model on P1 and P2 (P2 crosses every sliding window): logits and the residual
//    stream after every layer within max|delta|/max|ref| < 1e-4 at every position, both with
//    llama.cpp's arithmetic emulated (measured: 0 for most, i.e. bit for bit) and with the
//    pass's own (its default float-lane sums, and its exact double sums), except that the
//    latter two are held to 1e-3 where the FFN is GELU:
//    ggml computes it through an f16 table, so a value one ulp from an f16 boundary moves by an
//    f16 step (measured 1.0-1.7e-4 for gemma2/gemma3);
//  - the Q8_0 and Q4_K_M files (and gpt-oss's MXFP4 files) on P1 with llama.cpp's activation
//    rounding emulated: within 1e-3.
// A folder whose architecture the pass does not run is listed, not failed; the list of
// supported architectures is pinned so that a claim cannot appear without these rows.

#include "forward/BlockDescription.h"
#include "forward/ForwardPass.h"
#include "LogitsOracle.h"
#include "OpenFixture.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QtTest>

using namespace testsupport;

namespace {

constexpr double kFullPrecisionBound = 1e-4;
constexpr double kQuantizedBound = 1e-3;
constexpr double kGeluTableBound = 1e-3;

QString archDir()
{
    return fixturePath(QStringLiteral("llama.cpp/arch"));
}

// Architecture name of a folder (its manifest), empty when unreadable.
QString folderArchitecture(const QString& folder)
{
    const QJsonObject manifest = QJsonDocument::fromJson(readWholeFile(archDir() + QLatin1Char('/') + folder + QStringLiteral("/manifest.json"))).object();
    return manifest.value(QStringLiteral("architecture")).toString();
}

std::vector<std::int32_t> folderTokens(const QString& folder, const QString& sequence)
{
    const QJsonObject json = QJsonDocument::fromJson(readWholeFile(archDir() + QLatin1Char('/') + folder + QLatin1Char('/') + folder
                                                                   + QStringLiteral(".tokens.json")))
                                 .object();
    std::vector<std::int32_t> tokens;
    for (const auto& id : json.value(sequence).toArray())
        tokens.push_back(static_cast<std::int32_t>(id.toInteger()));
    return tokens;
}

QStringList folders()
{
    return QDir(archDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

}  // namespace

class ForwardArchitecturesTest : public QObject {
    Q_OBJECT

private slots:
    void matchesLlamaCpp_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("sequence");
        QTest::addColumn<bool>("emulate");
        QTest::addColumn<double>("bound");
        for (const QString& folder : folders()) {
            const gguf::BlockDescription* block = gguf::findBlockDescription(folderArchitecture(folder).toStdString());
            if (!block) {
                qInfo("%s: no forward pass for its architecture yet", qPrintable(folder));
                continue;
            }
            const double ownBound = block->activation == gguf::FeedForwardActivation::Gelu ? kGeluTableBound : kFullPrecisionBound;
            for (const char* sequence : {"P1", "P2"}) {
                QTest::newRow(qPrintable(folder + QStringLiteral("-F32 ") + QLatin1String(sequence)))
                    << folder << folder + QStringLiteral("-F32") << QString::fromLatin1(sequence) << false << ownBound;
                QTest::newRow(qPrintable(folder + QStringLiteral("-F32 ") + QLatin1String(sequence) + QStringLiteral(" llama.cpp arithmetic")))
                    << folder << folder + QStringLiteral("-F32") << QString::fromLatin1(sequence) << true << kFullPrecisionBound;
            }
            const QDir dir(archDir() + QLatin1Char('/') + folder);
            for (const QString& file : dir.entryList({folder + QStringLiteral("-*.P1.logits.f32")}, QDir::Files, QDir::Name)) {
                const QString model = file.section(QLatin1Char('.'), 0, 0);
                if (model != folder + QStringLiteral("-F32"))
                    QTest::newRow(qPrintable(model + QStringLiteral(" P1"))) << folder << model << QStringLiteral("P1") << true << kQuantizedBound;
            }
        }
    }

    void matchesLlamaCpp()
    {
        QFETCH(QString, folder);
        QFETCH(QString, model);
        QFETCH(QString, sequence);
        QFETCH(bool, emulate);
        QFETCH(double, bound);
        const QString base = archDir() + QLatin1Char('/') + folder + QLatin1Char('/') + model;
        const auto tokens = folderTokens(folder, sequence);
        QVERIFY(!tokens.empty());
        const auto opened = openModelAt(base + QStringLiteral(".gguf"));
        QVERIFY(opened);
        const std::vector<float> logits = readFloats(base + QLatin1Char('.') + sequence + QStringLiteral(".logits.f32"));
        const std::vector<float> hidden = readFloats(base + QLatin1Char('.') + sequence + QStringLiteral(".hidden.f32"));
        // The pass's own arithmetic is checked twice: the default sums and the exact (double) ones.
        for (const bool exact : emulate ? std::vector<bool>{false} : std::vector<bool>{false, true}) {
            gguf::ForwardOptions options;
            options.emulateLlamaCppActivations = emulate;
            options.accumulateInDouble = exact;
            auto result = gguf::runForward(*opened, tokens, options);
            QVERIFY2(result, result ? "" : result.error().toString().c_str());
            const auto& h = result->hyperparameters;
            QCOMPARE(result->logits.size(), logits.size());
            QCOMPARE(result->hidden.size(), hidden.size());
            const double logitError = worstRowError(result->logits, logits, static_cast<std::size_t>(h.vocabularySize));
            const double hiddenError = worstRowError(result->hidden, hidden, static_cast<std::size_t>(h.embeddingLength));
            qInfo("%s %s%s%s: worst position logits %.3g, worst layer/position hidden %.3g", qPrintable(model), qPrintable(sequence),
                  emulate ? " (llama.cpp activations)" : "", exact ? " (double sums)" : "", logitError, hiddenError);
            QVERIFY2(logitError < bound, qPrintable(QString::number(logitError)));
            QVERIFY2(hiddenError < bound, qPrintable(QString::number(hiddenError)));
        }
    }

    // What the pass claims to run: every name here has rows above (a folder in the fixtures),
    // and nothing else is claimed.
    void supportedArchitecturesAreTheCheckedOnes()
    {
        QStringList supported;
        for (const auto name : gguf::supportedArchitectures())
            supported << QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
        QStringList checked;
        for (const QString& folder : folders())
            if (const QString arch = folderArchitecture(folder); supported.contains(arch) && !checked.contains(arch))
                checked << arch;
        checked.sort();
        QCOMPARE(supported, checked);
    }
};

QTEST_GUILESS_MAIN(ForwardArchitecturesTest)
#include "tst_forward_architectures.moc"
