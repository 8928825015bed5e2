// Which tokens the held-out check of a scan plan measures (measurePlanOnHeldOutText, behind
// `plan --scan --text-file` and the planner's check): the scan's own text past its tokens; a text
// of its own whole, refused when it begins with the scan's tokens (those are not held out); the
// scan's text refused when its first tokens are not the scan's; the app's "either" choosing
// between the two by the text's first tokens. A text differing from the scan's in one token of
// the scanned part is another text.

#include "OpenFixture.h"
#include "app/threads/ParallelRows.h"
#include "core/recipe/ErrorTable.h"
#include "core/recipe/MixPlanner.h"
#include "core/recipe/QuantPresets.h"
#include "core/sensitivity/PlanHeldOutCheck.h"
#include "core/sensitivity/SensitivityScan.h"
#include "core/types/GgmlType.h"

#include <QtTest>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kScanned = 32;  // the scan's tokens, one chunk

// The scan's text: 32 scanned tokens, then two chunks more.
std::vector<std::int32_t> scansText()
{
    std::vector<std::int32_t> tokens;
    for (std::size_t i = 0; i < kScanned + 64; ++i)
        tokens.push_back(std::int32_t(2 + i * 37 % 300));
    return tokens;
}

// The scan's text with one token of its scanned part changed.
std::vector<std::int32_t> anotherText()
{
    std::vector<std::int32_t> tokens = scansText();
    tokens[kScanned / 2] += 1;
    return tokens;
}

}  // namespace

class TestPlanHeldOutSource : public QObject {
    Q_OBJECT

    std::shared_ptr<const gguf::Model> m_model;
    std::optional<gguf::ScanRecord> m_scan;
    std::optional<gguf::ErrorTable> m_table;
    std::vector<gguf::PresetOnFrontier> m_presets;
    gguf::Mix m_plan;  // Q4_K_M's mix stands for a plan: which mix is measured does not matter here

private slots:
    void initTestCase()
    {
        m_model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(m_model);
        const std::vector<std::int32_t> text = scansText();
        gguf::ScanOptions options;
        options.executor = &gguf::ParallelRows::shared();
        options.types = {gguf::findTypeByName("q4_K")->id};
        options.chunkSize = std::int64_t(kScanned);
        options.bosToken = std::int32_t(m_model->metadataUInt("tokenizer.ggml.bos_token_id").value_or(1));
        auto scan = gguf::SensitivityScan::prepare(*m_model, std::span(text).first(kScanned), options);
        QVERIFY2(scan, scan ? "" : scan.error().toString().c_str());
        m_scan = gguf::emptyRecord(**scan);
        QVERIFY(!m_scan->identity.parts.text.empty());  // the fingerprint the check compares
        QCOMPARE(m_scan->identity.tokens, std::int64_t(kScanned));

        gguf::ErrorTableOptions tableOptions;
        tableOptions.sampleRows = 4;
        tableOptions.executor = &gguf::ParallelRows::shared();
        auto table = gguf::measureErrorTable(*m_model, tableOptions);
        QVERIFY(table);
        m_table = std::move(*table);
        auto context = gguf::makePlanContext(*m_model, *m_table, false, std::nullopt);
        QVERIFY(context);
        m_presets = gguf::evaluatePresets(*context);
        const auto q4km = std::find_if(m_presets.begin(), m_presets.end(), [](const auto& p) { return p.preset == gguf::findQuantPreset("Q4_K_M"); });
        QVERIFY(q4km != m_presets.end() && q4km->evaluated);
        m_plan = q4km->mix;
    }

    void heldOutTokensOrRefusal_data()
    {
        QTest::addColumn<int>("source");
        QTest::addColumn<bool>("scanText");
        QTest::addColumn<int>("firstToken");  // -1: refused
        QTest::addColumn<QString>("refusal");
        const int past = int(gguf::HeldOutSource::PastTheScan);
        const int own = int(gguf::HeldOutSource::OwnText);
        const int either = int(gguf::HeldOutSource::Either);
        QTest::newRow("scan's text past the scan") << past << true << int(kScanned) << QString();
        QTest::newRow("another text past the scan: refused") << past << false << -1 << QStringLiteral("is not the one the scan was measured on");
        QTest::newRow("another text as its own") << own << false << 0 << QString();
        QTest::newRow("scan's text as its own: refused") << own << true << -1 << QStringLiteral("begins with the 32 tokens the scan was measured on");
        QTest::newRow("either, scan's text") << either << true << int(kScanned) << QString();
        QTest::newRow("either, another text") << either << false << 0 << QString();
    }

    void heldOutTokensOrRefusal()
    {
        QFETCH(int, source);
        QFETCH(bool, scanText);
        QFETCH(int, firstToken);
        QFETCH(QString, refusal);
        const std::vector<std::int32_t> text = scanText ? scansText() : anotherText();
        gguf::PlanHeldOutRequest request;
        request.source = gguf::HeldOutSource(source);
        request.most = 32;  // one chunk measured: the choice of tokens is what is tested
        request.executor = &gguf::ParallelRows::shared();
        const gguf::Budget budget{gguf::Budget::Kind::FileBytes, 1e12};
        auto result = gguf::measurePlanOnHeldOutText(*m_model, *m_scan, text, *m_table, m_plan, m_presets, budget, request);
        if (firstToken < 0) {
            QVERIFY(!result);
            QVERIFY2(QString::fromStdString(result.error().toString()).contains(refusal), result.error().toString().c_str());
            return;
        }
        QVERIFY2(result, result ? "" : result.error().toString().c_str());
        QCOMPARE(result->firstToken, std::int64_t(firstToken));
        QCOMPARE(result->tokens, std::int64_t(32));
        QVERIFY(!result->mixes.empty() && result->mixes.front().label == "plan");
    }
};

QTEST_MAIN(TestPlanHeldOutSource)
#include "tst_plan_held_out_source.moc"
