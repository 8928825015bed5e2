// llama.cpp's KV cache and attention in the forward pass (GgmlAttention.h, FlashAttention.h)
// against llama.cpp's own logits (tests/data/kv-cache-oracle, README there): for every case -
// a cache type for K and V, flash attention on or off, the queries per ubatch that pick
// ggml-cpu's kernel - the logits at the case's positions equal llama.cpp's bit for bit. The
// cases cover flash attention's tiles and its one-cell-at-a-time path with an f16 accumulator,
// the plain attention's tinyBLAS sums of f16 operands, quantized keys against the q8_0 / q8_1
// query, bf16, and on gpt-oss the Walsh-Hadamard rotation before a q8_0 cache with attention
// sinks and sliding windows. Each case also shows the oracle tells caches apart: the same
// tokens with the f32 cache and no flash attention (the architecture oracles') give other logits.

#include "app/threads/ParallelRows.h"
#include "core/forward/ForwardPass.h"
#include "core/types/GgmlType.h"
#include "LogitsOracle.h"
#include "OpenFixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QtTest>

#include <cstring>

using namespace testsupport;

namespace {

QString oracleDir()
{
    return QStringLiteral(GGUFX_SOURCE_DIR "/tests/data/kv-cache-oracle");
}

QJsonObject oracleCases()
{
    return QJsonDocument::fromJson(readWholeFile(oracleDir() + QStringLiteral("/cases.json"))).object();
}

std::uint32_t cacheType(const QString& name)
{
    const gguf::TypeTraits* type = gguf::findTypeByName(name.toStdString());
    return type ? type->id : ~0u;
}

}  // namespace

class ForwardKvCacheTest : public QObject {
    Q_OBJECT

private slots:
    void matchesLlamaCppBitForBit_data()
    {
        QTest::addColumn<QJsonObject>("entry");
        const QJsonObject all = oracleCases();
        const QJsonArray cases = all.value(QStringLiteral("cases")).toArray();
        QVERIFY2(cases.size() >= 10, "tests/data/kv-cache-oracle/cases.json missing or cut");
        for (const auto& value : cases) {
            QJsonObject entry = value.toObject();
            entry.insert(QStringLiteral("sequence"), all.value(QStringLiteral("tokens")).toObject().value(entry.value(QStringLiteral("tokens")).toString()));
            QTest::newRow(qPrintable(entry.value(QStringLiteral("name")).toString())) << entry;
        }
    }

    void matchesLlamaCppBitForBit()
    {
        QFETCH(QJsonObject, entry);
        const auto model = openFixtureModel(entry.value(QStringLiteral("model")).toString());
        QVERIFY(model);
        std::vector<std::int32_t> tokens;
        for (const auto& id : entry.value(QStringLiteral("sequence")).toArray())
            tokens.push_back(static_cast<std::int32_t>(id.toInteger()));
        QVERIFY(!tokens.empty());
        gguf::ForwardOptions options;
        options.executor = &gguf::ParallelRows::shared();
        options.keepHiddenStates = false;
        QCOMPARE(options.activations, gguf::ActivationArithmetic::LlamaCpp);  // the default
        options.kvCache.keyType = cacheType(entry.value(QStringLiteral("k")).toString());
        options.kvCache.valueType = cacheType(entry.value(QStringLiteral("v")).toString());
        options.kvCache.flashAttention =
            entry.value(QStringLiteral("flash_attn")).toString() == QLatin1String("on") ? gguf::FlashAttention::On : gguf::FlashAttention::Off;
        options.ubatchQueries = entry.value(QStringLiteral("ubatch")).toInt();
        auto ours = gguf::runForward(*model, tokens, options);
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        gguf::ForwardOptions oracleCache = options;
        oracleCache.kvCache = kOracleKvCache;
        oracleCache.ubatchQueries = 512;
        auto other = gguf::runForward(*model, tokens, oracleCache);
        QVERIFY(other);

        const std::vector<float> reference = readFloats(oracleDir() + QLatin1Char('/') + entry.value(QStringLiteral("logits")).toString());
        const auto vocabulary = static_cast<std::size_t>(ours->hyperparameters.vocabularySize);
        const QJsonArray positions = entry.value(QStringLiteral("positions")).toArray();
        QCOMPARE(reference.size(), static_cast<std::size_t>(positions.size()) * vocabulary);
        for (qsizetype i = 0; i < positions.size(); ++i) {
            const auto position = static_cast<std::int64_t>(positions[i].toInt());
            const float* expected = reference.data() + static_cast<std::size_t>(i) * vocabulary;
            const std::span<const float> row = ours->logitsAt(position);
            const double error = relativeRowError(row, {expected, vocabulary});
            qInfo("position %lld: max|delta|/max|ref| %.3g (f32 cache, no flash attention: %.3g)", static_cast<long long>(position), error,
                  relativeRowError(other->logitsAt(position), {expected, vocabulary}));
            QVERIFY2(std::memcmp(row.data(), expected, vocabulary * sizeof(float)) == 0, qPrintable(QString::number(error)));
            QVERIFY(std::memcmp(other->logitsAt(position).data(), expected, vocabulary * sizeof(float)) != 0);
        }
    }

    // llama.cpp refuses what it cannot run, and so does the pass: a quantized V cache without
    // flash attention, a block that does not divide the head.
    void refusesWhatLlamaCppRefuses()
    {
        const auto model = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(model);
        gguf::ForwardOptions options;
        options.kvCache = {gguf::typeIdValue(gguf::GgmlTypeId::F16), gguf::typeIdValue(gguf::GgmlTypeId::Q8_0), gguf::FlashAttention::Off};
        auto refused = gguf::runForward(*model, std::vector<std::int32_t>{1, 2, 3}, options);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("needs flash attention") != std::string::npos, refused.error().message.c_str());
        const auto gemma = openModelAt(fixturePath(QStringLiteral("llama.cpp/arch/gemma2/gemma2-Q8_0.gguf")));  // 48-value heads
        QVERIFY(gemma);
        options.kvCache = {gguf::typeIdValue(gguf::GgmlTypeId::Q8_0), gguf::typeIdValue(gguf::GgmlTypeId::Q8_0), gguf::FlashAttention::Auto};
        auto misfit = gguf::runForward(*gemma, std::vector<std::int32_t>{1, 2, 3}, options);
        QVERIFY(!misfit);
        QVERIFY2(misfit.error().message.find("does not divide the head size 48") != std::string::npos, misfit.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(ForwardKvCacheTest)
#include "tst_forward_kv_cache.moc"
