// Quantizing with an importance matrix, against llama-quantize's own output. The fixtures in
// ../shared/fixtures/llama.cpp/ (README §3-4) were made by `llama-quantize --imatrix` from
// tiny-llama-F32.gguf and tiny-moe-F16.gguf (widened to f32 first, as llama-quantize does); for
// every tensor in a type the core can produce, quantizing the source rows with the imatrix
// weights of that tensor (per expert for *_exps tensors; none for token_embd / output, which
// have no entry) must give exactly the bytes in the file. Also: the new types without weights
// against all-types.gguf / q8-internal-types.gguf, the types ggml refuses without importance,
// the types whose ggml quantizer ignores weights, and misfit weight rows.

#include "Fixtures.h"
#include "ImatrixWeights.h"
#include "OpenFixture.h"
#include "DequantizeWhole.h"
#include "core/gguf/GgufFile.h"
#include "core/gguf/Dequantize.h"
#include "core/quantize/AsymmetricSearch8.h"
#include "core/quantize/Quantize.h"
#include "core/quantize/WeightedSearch.h"
#include "core/quantize/WeightedSearch8.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

using namespace gguf;
using testsupport::dequantizeWhole;
using testsupport::openFixtureFile;

namespace {

// "" when equal, else the first differing block and byte.
QString firstDifference(const std::vector<std::uint8_t>& ours, const std::uint8_t* theirs, std::size_t size, std::size_t blockBytes)
{
    if (ours.size() != size)
        return QStringLiteral("size %1 vs %2").arg(ours.size()).arg(size);
    if (std::memcmp(ours.data(), theirs, size) == 0)
        return {};
    std::size_t at = 0;
    while (ours[at] == theirs[at])
        ++at;
    std::size_t differing = 0;
    for (std::size_t b = 0; b < size / blockBytes; ++b)
        differing += std::memcmp(ours.data() + b * blockBytes, theirs + b * blockBytes, blockBytes) != 0;
    return QStringLiteral("block %1 byte %2: ours 0x%3, ggml 0x%4 (%5 of %6 blocks differ)")
        .arg(at / blockBytes)
        .arg(at % blockBytes)
        .arg(ours[at], 2, 16, QLatin1Char('0'))
        .arg(theirs[at], 2, 16, QLatin1Char('0'))
        .arg(differing)
        .arg(size / blockBytes);
}

}  // namespace

class QuantizeImatrixTest : public QObject {
    Q_OBJECT

private slots:
    void llamaQuantizeBytesIdentical_data();
    void llamaQuantizeBytesIdentical();
    void q8KMatchesGgmlReference();
    void allOnesImatrixMatchesAllTypes();
    void weightedEdgeInputsAreDeterministic_data();
    void weightedEdgeInputsAreDeterministic();
    void hugeImportanceFailsInsteadOfNaNScales();
    void refusesWithoutImportance();
    void typesIgnoringWeightsGiveSameBytes();
    void weightsChangeTheWeightedTypes();
    void rejectsMisfitImportance();
    void weightedLaneSearchMatchesScalar();
};

void QuantizeImatrixTest::llamaQuantizeBytesIdentical_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("imatrix");
    const QStringList llama = testsupport::fixtureNames(QStringLiteral("llama.cpp"), QStringLiteral("tiny-llama-imat-*.gguf"));
    const QStringList moe = testsupport::fixtureNames(QStringLiteral("llama.cpp"), QStringLiteral("tiny-moe-imat-*.gguf"));
    QVERIFY2(!llama.isEmpty() && !moe.isEmpty(), "no llama.cpp/tiny-{llama,moe}-imat-*.gguf fixtures");
    for (const QString& name : llama)
        QTest::newRow(qPrintable(name)) << QStringLiteral("llama.cpp/") + name << QStringLiteral("tiny-llama-F32.gguf")
                                        << QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf");
    for (const QString& name : moe)
        QTest::newRow(qPrintable(name)) << QStringLiteral("llama.cpp/") + name << QStringLiteral("tiny-moe-F16.gguf")
                                        << QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf");
}

void QuantizeImatrixTest::llamaQuantizeBytesIdentical()
{
    QFETCH(QString, target);
    QFETCH(QString, source);
    QFETCH(QString, imatrix);
    const auto targetFile = openFixtureFile(target);
    const auto sourceFile = openFixtureFile(source);
    QVERIFY(targetFile && sourceFile);
    QString error;
    const auto weights = testsupport::ImatrixWeights::load(testsupport::fixturePath(imatrix), &error);
    QVERIFY2(weights, qPrintable(error));
    QVERIFY(weights->entryCount() > 0);

    int identical = 0;
    int weighted = 0;
    QStringList unsupported;
    QStringList failures;
    for (const TensorInfo& tensor : targetFile->tensors()) {
        const TensorInfo* origin = sourceFile->findTensor(tensor.name);
        QVERIFY2(origin, tensor.name.data());
        if (tensor.nDims < 2 || tensor.typeId == origin->typeId || tensor.typeId == typeIdValue(GgmlTypeId::F32))
            continue;  // copied, not quantized
        if (!canQuantize(tensor.typeId)) {
            unsupported << QLatin1String(tensor.traits->name);
            continue;
        }
        QCOMPARE(origin->ne, tensor.ne);
        const std::vector<float> values = dequantizeWhole(*origin);
        QVERIFY(!values.empty());
        const std::string name(tensor.name);
        const bool hasWeights = weights->has(name);
        weighted += hasWeights;
        const std::int64_t rowLength = tensor.ne[0];
        const std::size_t expertValues = std::size_t(tensor.ne[0] * tensor.ne[1]);
        const std::size_t expertBytes = std::size_t(quantizedSize(*tensor.traits, expertValues));
        std::vector<std::uint8_t> ours(std::size_t(tensor.nbytes));
        for (std::int64_t expert = 0; expert < tensor.ne[2]; ++expert) {
            const std::vector<float> row = hasWeights ? weights->quantWeights(name, int(expert)) : std::vector<float>{};
            const std::span<const float> part(values.data() + std::size_t(expert) * expertValues, expertValues);
            const Status s = quantizeRows(tensor.typeId, part, rowLength, row,
                                          std::span<std::uint8_t>(ours.data() + std::size_t(expert) * expertBytes, expertBytes));
            QVERIFY2(s, s ? "" : s.error().toString().c_str());
        }
        const QString difference = firstDifference(ours, tensor.data, std::size_t(tensor.nbytes), tensor.traits->blockBytes);
        if (difference.isEmpty())
            ++identical;
        else
            failures << QStringLiteral("%1 (%2%3): %4")
                            .arg(QLatin1String(tensor.name), QLatin1String(tensor.traits->name),
                                 hasWeights ? QStringLiteral(", imatrix") : QString(), difference);
    }
    unsupported.removeDuplicates();
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QStringLiteral("; "))));
    qInfo("%s: %d tensors byte-identical (%d with imatrix weights); no quantizer yet for: %s", qPrintable(target), identical,
          weighted, qPrintable(unsupported.join(QStringLiteral(", "))));
    QVERIFY2(identical > 0, "no tensor of this file is in a type the core can produce");
}

// q8-internal-types.gguf: tensor q8_k was made by ggml's quantize_row_q8_K_ref from the values of
// all-types.gguf's f32 tensor.
void QuantizeImatrixTest::q8KMatchesGgmlReference()
{
    const auto oracle = openFixtureFile(QStringLiteral("q8-internal-types.gguf"));
    const auto source = openFixtureFile(QStringLiteral("all-types.gguf"));
    QVERIFY(oracle && source);
    const TensorInfo* q8k = oracle->findTensor("q8_k");
    const TensorInfo* f32 = source->findTensor("f32");
    QVERIFY(q8k && f32);
    const std::vector<float> values = dequantizeWhole(*f32);
    std::vector<std::uint8_t> ours(std::size_t(q8k->nbytes));
    QVERIFY(quantizeRows(q8k->typeId, values, q8k->ne[0], {}, ours));
    QCOMPARE(firstDifference(ours, q8k->data, std::size_t(q8k->nbytes), q8k->traits->blockBytes), QString());
}

// all-types.gguf: iq2_xxs, iq2_xs and iq1_s were quantized with an importance row of all ones
// (its metadata key test.imatrix_all_ones_types), from the values of its f32 tensor.
void QuantizeImatrixTest::allOnesImatrixMatchesAllTypes()
{
    const auto file = openFixtureFile(QStringLiteral("all-types.gguf"));
    QVERIFY(file);
    const TensorInfo* f32 = file->findTensor("f32");
    QVERIFY(f32);
    const std::vector<float> values = dequantizeWhole(*f32);
    const std::vector<float> ones(std::size_t(f32->ne[0]), 1.0f);
    int checked = 0;
    for (const char* name : {"iq2_xxs", "iq2_xs", "iq1_s"}) {
        const TensorInfo* tensor = file->findTensor(name);
        QVERIFY(tensor);
        if (!canQuantize(tensor->typeId)) {
            qInfo("%s: no quantizer yet", name);
            continue;
        }
        std::vector<std::uint8_t> ours(std::size_t(tensor->nbytes));
        const Status s = quantizeRows(tensor->typeId, values, f32->ne[0], ones, ours);
        QVERIFY2(s, s ? "" : s.error().toString().c_str());
        QCOMPARE(firstDifference(ours, tensor->data, ours.size(), tensor->traits->blockBytes), QString());
        ++checked;
    }
    QVERIFY(checked >= 2);
}

void QuantizeImatrixTest::weightedEdgeInputsAreDeterministic_data()
{
    QTest::addColumn<int>("typeId");
    for (const TypeTraits* type : quantizableTypes())
        if (usesImportance(type->id))
            QTest::newRow(type->name) << int(type->id);
}

// Zeros, NaN, infinities, huge and tiny values, and weights that are zero, negative, NaN or
// infinite: never undefined behaviour (the asan preset runs this), the same bytes twice.
void QuantizeImatrixTest::weightedEdgeInputsAreDeterministic()
{
    QFETCH(int, typeId);
    const TypeTraits& traits = *findType(std::uint32_t(typeId));
    const std::size_t n = 512;
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float big = std::numeric_limits<float>::max();
    std::vector<float> wild(n);
    std::vector<float> weights(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float pattern[] = {nan, inf, -inf, big, -big, 1e-40f, -0.0f, float(i) * 1e30f, 0.5f};
        wild[i] = (i / 97) % 2 ? float(i % 13) - 6.0f : pattern[i % std::size(pattern)];
        const float weightPattern[] = {0.0f, 1.0f, -1.0f, nan, inf, 1e-30f, 3.0f};
        weights[i] = weightPattern[i % std::size(weightPattern)];
    }
    const std::vector<float> zeros(n, 0.0f);
    const std::vector<float> ones(n, 1.0f);
    using Case = std::pair<const std::vector<float>*, const std::vector<float>*>;
    for (const auto& [values, importance] : {Case{&zeros, &ones}, Case{&wild, &ones}, Case{&wild, &weights}, Case{&zeros, &weights}}) {
        std::vector<std::uint8_t> first(std::size_t(quantizedSize(traits, n)));
        std::vector<std::uint8_t> second(first.size());
        const Status once = quantizeRows(traits.id, *values, std::int64_t(n), *importance, first);
        const Status again = quantizeRows(traits.id, *values, std::int64_t(n), *importance, second);
        QCOMPARE(bool(once), bool(again));
        QVERIFY(first == second);
        // NaN and infinite inputs may give a NaN scale, which llama-quantize's validation
        // refuses: so does quantizeRows, naming it. Finite zeros never do.
        if (!once) {
            QVERIFY(values != &zeros);
            QVERIFY2(once.error().message.find("scale") != std::string::npos, once.error().message.c_str());
            continue;
        }
        std::vector<float> decoded(n);
        traits.dequantize(first.data(), decoded.data(), n / traits.blockSize);
    }
}

// A flipped exponent bit in an imatrix gives weights near FLT_MAX. With them ggml's weighted
// searches overflow; whatever a type does with them, it never hands back a block whose
// dequantized values are NaN or infinite: it fails instead (llama-quantize's validation).
void QuantizeImatrixTest::hugeImportanceFailsInsteadOfNaNScales()
{
    const std::size_t n = 512;
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i)
        values[i] = 0.05f * float(int(i * 7919 % 41) - 20);
    int refused = 0;
    for (const float weight : {3.4e38f, 1e30f}) {
        const std::vector<float> importance(n, weight);
        for (const TypeTraits* type : quantizableTypes()) {
            if (!usesImportance(type->id))
                continue;
            std::vector<std::uint8_t> out(std::size_t(quantizedSize(*type, n)));
            const Status s = quantizeRows(type->id, values, std::int64_t(n), importance, out);
            if (!s) {
                ++refused;
                QVERIFY2(s.error().message.find("scale") != std::string::npos, s.error().message.c_str());
                continue;
            }
            std::vector<float> decoded(n);
            type->dequantize(out.data(), decoded.data(), n / type->blockSize);
            for (const float v : decoded)
                QVERIFY2(std::isfinite(v), type->name);
        }
    }
    QVERIFY(refused > 0);  // some searches do overflow: the guard is what stops them
}

void QuantizeImatrixTest::refusesWithoutImportance()
{
    const std::vector<float> values(256, 0.5f);
    std::vector<std::uint8_t> out(1024);
    for (const GgmlTypeId type : {GgmlTypeId::IQ2_XXS, GgmlTypeId::IQ2_XS, GgmlTypeId::IQ1_S}) {
        QVERIFY(requiresImportance(typeIdValue(type)));
        const Status s = quantizeRows(typeIdValue(type), values, 256, {}, out);
        QVERIFY(!s);
        QVERIFY2(s.error().message.find("importance") != std::string::npos, s.error().message.c_str());
    }
    for (const GgmlTypeId type : {GgmlTypeId::Q2_K, GgmlTypeId::IQ4_XS, GgmlTypeId::IQ1_M, GgmlTypeId::Q4_0})
        QVERIFY(!requiresImportance(typeIdValue(type)));
}

// ggml_quantize_chunk runs the reference quantizer for these whatever the weights.
void QuantizeImatrixTest::typesIgnoringWeightsGiveSameBytes()
{
    const auto file = openFixtureFile(QStringLiteral("tiny-llama-F32.gguf"));
    QVERIFY(file);
    const TensorInfo* tensor = file->findTensor("blk.0.ffn_down.weight");  // [768, 256]
    QVERIFY(tensor);
    const std::vector<float> values = dequantizeWhole(*tensor);
    std::vector<float> importance(std::size_t(tensor->ne[0]));
    for (std::size_t i = 0; i < importance.size(); ++i)
        importance[i] = 0.01f + float(i % 13);
    for (const GgmlTypeId type : {GgmlTypeId::F16, GgmlTypeId::BF16, GgmlTypeId::Q8_0, GgmlTypeId::TQ1_0, GgmlTypeId::TQ2_0,
                                  GgmlTypeId::MXFP4, GgmlTypeId::NVFP4, GgmlTypeId::Q1_0, GgmlTypeId::Q2_0, GgmlTypeId::Q8_K}) {
        const TypeTraits& traits = traitsOf(type);
        std::vector<std::uint8_t> plain(std::size_t(quantizedSize(traits, values.size())));
        std::vector<std::uint8_t> weighted(plain.size());
        QVERIFY(quantizeRows(traits.id, values, tensor->ne[0], {}, plain));
        QVERIFY(quantizeRows(traits.id, values, tensor->ne[0], importance, weighted));
        QVERIFY2(plain == weighted, traits.name);
    }
}

// The weighted quantizers read the weights: a non-uniform importance row changes their bytes.
// (A check that the dispatch reaches them; byte identity with ggml is llamaQuantizeBytesIdentical.)
void QuantizeImatrixTest::weightsChangeTheWeightedTypes()
{
    const auto file = openFixtureFile(QStringLiteral("tiny-llama-F32.gguf"));
    QVERIFY(file);
    const TensorInfo* tensor = file->findTensor("blk.0.ffn_down.weight");
    QVERIFY(tensor);
    const std::vector<float> values = dequantizeWhole(*tensor);
    std::vector<float> importance(std::size_t(tensor->ne[0]));
    for (std::size_t i = 0; i < importance.size(); ++i)
        importance[i] = i % 7 == 0 ? 50.0f : 0.01f;
    for (const GgmlTypeId type : {GgmlTypeId::Q4_0, GgmlTypeId::Q4_1, GgmlTypeId::Q5_0, GgmlTypeId::Q5_1, GgmlTypeId::Q2_K,
                                  GgmlTypeId::Q3_K, GgmlTypeId::Q4_K, GgmlTypeId::Q5_K, GgmlTypeId::Q6_K, GgmlTypeId::IQ4_NL,
                                  GgmlTypeId::IQ4_XS}) {
        const TypeTraits& traits = traitsOf(type);
        std::vector<std::uint8_t> plain(std::size_t(quantizedSize(traits, values.size())));
        std::vector<std::uint8_t> weighted(plain.size());
        QVERIFY(quantizeRows(traits.id, values, tensor->ne[0], {}, plain));
        QVERIFY(quantizeRows(traits.id, values, tensor->ne[0], importance, weighted));
        QVERIFY2(plain != weighted, traits.name);
    }
}

void QuantizeImatrixTest::rejectsMisfitImportance()
{
    const std::vector<float> values(512, 0.25f);
    std::vector<std::uint8_t> out(2 * 144);
    const std::uint32_t q4k = typeIdValue(GgmlTypeId::Q4_K);
    const std::vector<float> shortRow(255, 1.0f);
    QVERIFY(!quantizeRows(q4k, values, 256, shortRow, out));
    const std::vector<float> row(256, 1.0f);
    QVERIFY(quantizeRows(q4k, values, 256, row, out));
    QVERIFY(!quantizeRows(q4k, values, 128, std::vector<float>(128, 1.0f), out));  // not whole super-blocks
    QVERIFY(!quantizeRows(q4k, std::span<const float>(values.data(), 300), 256, row, out));
    std::vector<std::uint8_t> small(100);
    QVERIFY(!quantizeRows(q4k, values, 256, row, small));
}

// The eight-lane weighted search (WeightedSearch8.h) against the scalar one, lane by lane and bit
// for bit, on groups the fixtures rarely hold: all negative (the refit min lands near max, so the
// candidate levels overflow nearest_int's range), flat, zero, tiny, spiky, NaN, zero weights.
void QuantizeImatrixTest::weightedLaneSearchMatchesScalar()
{
    using namespace gguf::quantize;
    const WeightedAsymmetricSearch8Fn search8 = weightedAsymmetricSearch8();
    if (!search8)
        QSKIP("no AVX2 on this CPU (or GGUFX_KERNELS caps it)");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::uint32_t seed = 14;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return float(seed >> 8) / float(1u << 24) - 0.5f;
    };
    int checked = 0;
    for (const int n : {16, 32}) {
        for (const int nmax : {3, 15, 31}) {
            for (int round = 0; round < 40; ++round) {
                std::vector<float> x(std::size_t(8 * n));
                std::vector<float> w(std::size_t(8 * n));
                for (int g = 0; g < 8; ++g) {
                    const int kind = (round + g) % 8;
                    for (int i = 0; i < n; ++i) {
                        float v = next();
                        if (kind == 1)
                            v = -std::abs(v) - 0.01f;  // all negative
                        else if (kind == 2)
                            v = 0.25f;  // flat
                        else if (kind == 3)
                            v = 0.0f;
                        else if (kind == 4)
                            v *= 1e-30f;
                        else if (kind == 5 && i == 3)
                            v = 40.0f;
                        else if (kind == 6 && i == 5)
                            v = nan;
                        x[std::size_t(g * n + i)] = v;
                        w[std::size_t(g * n + i)] = kind == 7 && i % 3 == 0 ? 0.0f : std::abs(next()) + 0.01f;
                    }
                }
                std::vector<float> xi(x.size());
                std::vector<float> wi(w.size());
                interleaveGroups(x.data(), n, 8, xi.data());
                interleaveGroups(w.data(), n, 8, wi.data());
                std::vector<std::uint8_t> li(x.size());
                float scales[8];
                float mins[8];
                search8(n, nmax, xi.data(), wi.data(), li.data(), scales, mins, -0.9f, 0.05f, 36);
                for (int g = 0; g < 8; ++g) {
                    std::uint8_t L[32];
                    std::uint8_t scratch[32];
                    float min = 0.0f;
                    const float scale = makeWeightedAsymmetricLevels(n, nmax, x.data() + g * n, w.data() + g * n, L, &min, scratch,
                                                                     -0.9f, 0.05f, 36);
                    QCOMPARE(std::bit_cast<std::uint32_t>(scales[g]), std::bit_cast<std::uint32_t>(scale));
                    QCOMPARE(std::bit_cast<std::uint32_t>(mins[g]), std::bit_cast<std::uint32_t>(min));
                    for (int i = 0; i < n; ++i)
                        QCOMPARE(int(li[std::size_t(8 * i + g)]), int(L[i]));
                    ++checked;
                }
                // The symmetric search (make_qx_quants with weights) on the same groups.
                const WeightedSymmetricSearch8Fn symmetric8 = weightedSymmetricSearch8();
                QVERIFY(symmetric8);
                const int symmetricMax = nmax == 3 ? 4 : nmax == 15 ? 8 : 32;
                std::vector<std::int8_t> si(x.size());
                symmetric8(n, symmetricMax, xi.data(), wi.data(), si.data(), scales);
                for (int g = 0; g < 8; ++g) {
                    std::int8_t L[32];
                    const float scale = makeWeightedSymmetricLevels(n, symmetricMax, x.data() + g * n, w.data() + g * n, L);
                    QCOMPARE(std::bit_cast<std::uint32_t>(scales[g]), std::bit_cast<std::uint32_t>(scale));
                    for (int i = 0; i < n; ++i)
                        QCOMPARE(int(si[std::size_t(8 * i + g)]), int(L[i]));
                }
            }
        }
    }
    QCOMPARE(checked, 2 * 3 * 40 * 8);
}

QTEST_APPLESS_MAIN(QuantizeImatrixTest)
#include "tst_quantize_imatrix.moc"
