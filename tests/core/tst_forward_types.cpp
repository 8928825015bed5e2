// The forward pass on every ggml type llama.cpp runs, against llama.cpp's own logits
// (fixtures/llama.cpp/types/, its README: llama.cpp 80fb11a, the CPU backend's haswell variant,
// f32 KV cache, flash attention off, extra buffer types on, so repacked layouts and the IQ panel
// take part), one row per file, token list and arithmetic:
//  - the dense files tiny-llama-<TYPE> (every 2-D weight in one type) and the NVFP4 file with
//    per-tensor scales, in llama.cpp's arithmetic (the default) and with q8 activations only
//    (--q8-activations: q8 activations into quantized weights, f32 elsewhere); F16 and F32 only
//    in the former (the q8 arithmetic keeps their activations f32 by design);
//  - the MoE files tiny-moe-<TYPE>, written here by the converter from tiny-moe-F16 (llama-quantize
//    --pure: every tensor's type as its log says, which is checked), in llama.cpp's arithmetic: an
//    expert router turns a last-bit difference into another expert, so these rows need llama.cpp's
//    products to the bit, mul_mat_id's included.
// Bound: max |ours - llama.cpp| / max |llama.cpp| <= 1e-3 at every position (the README's). Each
// type's products are llama.cpp's to the bit (its activation type and its kernels' summation
// order, CpuProduct in the type table), and in llama.cpp's arithmetic so are the logits
// (measured: 0 on every file): a kernel summed in another order, or activations quantized to
// another type, moves a position past the bound through the q8 roundings downstream (before the
// kernels followed ggml's order, 35 of the 88 rows in llama.cpp's arithmetic were past it). The
// q8 arithmetic's attention is plain f32, not ggml's: a last-bit difference there (from the
// third position on) crosses a q8 rounding now and then and moves the logits by 1e-2 (13 of its
// 46 rows), so its rows are held to no further from llama.cpp than with f32 activations plus the
// bound, and its first position, which attention does not mix, to the bound itself.
// Under the sanitizers only P1 runs (the suite must stay within seconds there).

#include "app/threads/ParallelRows.h"
#include "core/forward/ForwardPass.h"
#include "core/quantize/Conversion.h"
#include "LogitsOracle.h"
#include "OpenFixture.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <QtTest>

#include <map>
#include <memory>
#include <span>

using namespace testsupport;

namespace {

constexpr double kBound = 1e-3;

#if defined(GGUFX_SANITIZED)
constexpr const char* kSequences[] = {"P1"};
#else
constexpr const char* kSequences[] = {"P1", "P2"};
#endif

QString typesDir()
{
    return fixturePath(QStringLiteral("llama.cpp/types"));
}

// The files of the oracle: "tiny-llama-Q4_K", "tiny-moe-Q3_K_S", ...
QStringList oracleModels(const QString& family)
{
    QStringList models;
    for (const QString& file : QDir(typesDir()).entryList({family + QStringLiteral("-*.P1.logits.f32")}, QDir::Files, QDir::Name))
        models << file.section(QLatin1Char('.'), 0, 0);
    return models;
}

std::vector<std::int32_t> oracleTokens(const QString& family, const QString& sequence)
{
    const QJsonObject json =
        QJsonDocument::fromJson(readWholeFile(typesDir() + QLatin1Char('/') + family + QStringLiteral(".tokens.json"))).object();
    std::vector<std::int32_t> tokens;
    for (const auto& id : json.value(sequence).toArray())
        tokens.push_back(static_cast<std::int32_t>(id.toInteger()));
    return tokens;
}

// llama-quantize --pure's ggml type for a file-type name: Q3_K_S means every tensor q3_K,
// MXFP4_MOE every 2-D weight mxfp4.
QString ggmlTypeOf(const QString& fileType)
{
    if (fileType == QLatin1String("MXFP4_MOE"))
        return QStringLiteral("mxfp4");
    QString type = fileType;
    type.remove(QRegularExpression(QStringLiteral("_S$")));
    return type;
}

// Every tensor's type in llama-quantize's log ("[  9/  23] blk.0.ffn_down_exps.weight - [...],
// type =    f16, converting to q4_0 .. size = ..."), by name.
std::map<std::string, std::string> typesInQuantizeLog(const QString& path)
{
    std::map<std::string, std::string> types;
    static const QRegularExpression line(QStringLiteral(R"(^\[\s*\d+/\s*\d+\]\s+(\S+)\s+-.*type =\s+(\S+?),?\s*(?:converting to (\S+)|size))"));
    for (const QByteArray& text : readWholeFile(path).split('\n')) {
        const auto match = line.match(QString::fromUtf8(text));
        if (match.hasMatch())
            types[match.captured(1).toStdString()] = (match.captured(3).isEmpty() ? match.captured(2) : match.captured(3)).toStdString();
    }
    return types;
}

}  // namespace

class ForwardTypesTest : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::map<QString, std::shared_ptr<const gguf::Model>> m_converted;

    // tiny-moe-<TYPE>, converted from tiny-moe-F16 once per type.
    std::shared_ptr<const gguf::Model> moeModel(const QString& model)
    {
        if (const auto it = m_converted.find(model); it != m_converted.end())
            return it->second;
        const auto source = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        if (!source)
            return nullptr;
        const gguf::TypeTraits* type = gguf::findTypeByName(ggmlTypeOf(model.section(QLatin1Char('-'), 2)).toStdString());
        if (!type)
            return nullptr;
        gguf::ConversionOptions options;
        options.targetType = type->id;
        options.executor = &gguf::ParallelRows::shared();
        const QString path = m_dir.filePath(model + QStringLiteral(".gguf"));
        if (!gguf::convertModel(*source, path.toStdString(), options))
            return nullptr;
        return m_converted[model] = openModelAt(path);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Dense: the 24 types of fixtures/tiny-llama-<TYPE>.gguf and the scaled NVFP4 file; MoE: 19.
        QCOMPARE(oracleModels(QStringLiteral("tiny-llama")).size(), 25);
        QCOMPARE(oracleModels(QStringLiteral("tiny-moe")).size(), 19);
    }

    void matchesLlamaCpp_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("sequence");
        QTest::addColumn<bool>("llamaActivations");
        for (const QString& family : {QStringLiteral("tiny-llama"), QStringLiteral("tiny-moe")})
            for (const QString& model : oracleModels(family)) {
                const bool dense = family == QLatin1String("tiny-llama");
                const bool floatWeights = model.endsWith(QLatin1String("-F16")) || model.endsWith(QLatin1String("-BF16"));
                for (const bool llama : {false, true}) {
                    if (!llama && (floatWeights || !dense))
                        continue;
                    for (const char* sequence : kSequences)
                        QTest::newRow(qPrintable(model + QLatin1Char(' ') + QLatin1String(sequence) + (llama ? " llama.cpp arithmetic" : " q8 activations")))
                            << model << QString::fromLatin1(sequence) << llama;
                }
            }
    }

    void matchesLlamaCpp()
    {
        QFETCH(QString, model);
        QFETCH(QString, sequence);
        QFETCH(bool, llamaActivations);
        const QString family = model.startsWith(QLatin1String("tiny-moe")) ? QStringLiteral("tiny-moe") : QStringLiteral("tiny-llama");
        std::shared_ptr<const gguf::Model> opened;
        if (family == QLatin1String("tiny-moe"))
            opened = moeModel(model);
        else if (model.endsWith(QLatin1String("-scaled")))
            opened = openModelAt(typesDir() + QLatin1Char('/') + model + QStringLiteral(".gguf"));
        else
            opened = openFixtureModel(model + QStringLiteral(".gguf"));
        QVERIFY(opened);
        if (family == QLatin1String("tiny-moe")) {
            // The converted file holds every tensor in the type llama-quantize gave it.
            const auto expected = typesInQuantizeLog(typesDir() + QLatin1Char('/') + model + QStringLiteral(".gguf.log"));
            QCOMPARE(expected.size(), opened->tensors().size());
            for (const gguf::TensorInfo& tensor : opened->tensors())
                QCOMPARE(gguf::typeName(tensor.typeId), expected.at(std::string(tensor.name)));
        }
        const auto tokens = oracleTokens(family, sequence);
        const std::vector<float> reference = readFloats(typesDir() + QLatin1Char('/') + model + QLatin1Char('.') + sequence + QStringLiteral(".logits.f32"));
        // The worst position's error, and the first position's.
        struct Errors {
            double worst = 1e30;
            double first = 1e30;
        };
        const auto errorsWith = [&](gguf::ActivationArithmetic arithmetic) -> Errors {
            gguf::ForwardOptions options;
            options.executor = &gguf::ParallelRows::shared();
            options.activations = arithmetic;
            options.keepHiddenStates = false;
            // The oracle's cache: f32 keys and values, flash attention off.
            options.kvCache = gguf::KvCacheSettings{0, 0, gguf::FlashAttention::Off};
            const auto result = gguf::runForward(*opened, tokens, options);
            if (!result || result->logits.size() != reference.size()) {
                qWarning("%s", result ? "logits of another size" : result.error().toString().c_str());
                return {};
            }
            const auto width = static_cast<std::size_t>(result->hyperparameters.vocabularySize);
            return {worstRowError(result->logits, reference, width),
                    relativeRowError(std::span<const float>(result->logits).first(width), std::span<const float>(reference).first(width))};
        };
        const Errors errors = errorsWith(llamaActivations ? gguf::ActivationArithmetic::LlamaCpp : gguf::ActivationArithmetic::QuantizedAsLlamaCpp);
        double bound = kBound;
        if (!llamaActivations && !model.endsWith(QLatin1String("-F32")))
            bound += errorsWith(gguf::ActivationArithmetic::Float32).worst;
        qInfo("%s %s%s: worst position %.3g (bound %.3g), first %.3g", qPrintable(model), qPrintable(sequence),
              llamaActivations ? " (llama.cpp arithmetic)" : " (q8 activations)", errors.worst, bound, errors.first);
        QVERIFY2(errors.first <= kBound, qPrintable(QString::number(errors.first)));
        QVERIFY2(errors.worst <= bound, qPrintable(QString::number(errors.worst)));
    }
};

QTEST_GUILESS_MAIN(ForwardTypesTest)
#include "tst_forward_types.moc"
