// core/LayerBreakdown and core/Vocabulary, Qt-free pieces of the overview and tokenizer pages,
// against the fixture manifests: per-layer bytes by type recomputed from each manifest's tensor
// list, token texts, types and scores from the manifests' arrays, and small files written with
// GgufWriter for what no fixture has (a tokens array of the wrong type, short score arrays).

#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/write/GgufWriter.h"
#include "core/analysis/LayerBreakdown.h"
#include "Manifest.h"
#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace testsupport;

namespace {

// Token strings a manifest lists for an array: all of a short array, `first4` of a long one.
QList<QByteArray> manifestStrings(const JsonNode& array)
{
    const JsonNode* items = array.kind == JsonNode::Kind::Object ? array.member("first4") : &array;
    QList<QByteArray> strings;
    for (const JsonNode& item : items->items)
        strings.append(item.text);
    return strings;
}

QList<double> manifestNumbers(const JsonNode& array)
{
    const JsonNode* items = array.kind == JsonNode::Kind::Object ? array.member("first4") : &array;
    QList<double> numbers;
    for (const JsonNode& item : items->items)
        numbers.append(item.text.toDouble());
    return numbers;
}

// Writes a GGUF with the given metadata and no tensors; returns its path.
QString writeFile(const QTemporaryDir& dir, const QString& name, const std::vector<std::pair<std::string, gguf::EncodedValue>>& values)
{
    gguf::GgufWriter writer;
    for (const auto& [key, value] : values)
        writer.setValue(key, value);
    const QString path = dir.filePath(name);
    const gguf::Status written = writer.writeFile(path.toStdString());
    if (!written)
        qWarning("%s", written.error().toString().c_str());
    return path;
}

gguf::TensorInfo tensorNamed(std::string_view name, std::uint32_t typeId, std::uint64_t nbytes)
{
    gguf::TensorInfo info;
    info.name = name;
    info.typeId = typeId;
    info.nbytes = nbytes;
    return info;
}

}  // namespace

class TestVocabulary : public QObject {
    Q_OBJECT

private slots:
    void layerIndexFromName_data();
    void layerIndexFromName();
    void breakdownMatchesManifest_data();
    void breakdownMatchesManifest();
    void tinyMoeBreakdown();
    void layerNumbersFromNamesStaySparse();

    void tokensMatchManifest_data();
    void tokensMatchManifest();
    void everyTokenMatchesSequentialWalk();
    void byteTokensAreFound();
    void displayText_data();
    void displayText();
    void tokenTypeNames_data();
    void tokenTypeNames();
    void specialTokens();
    void fileWithoutTokens();
    void tokensOfTheWrongType();
    void shortAndNonNumericSideArrays();
    void cancellation();
};

void TestVocabulary::layerIndexFromName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("layer");  // -1: not a layer tensor
    QTest::newRow("layer 0") << "blk.0.attn_q.weight" << qint64(0);
    QTest::newRow("layer 12") << "blk.12.ffn_up_exps.weight" << qint64(12);
    QTest::newRow("leading zero") << "blk.07.x" << qint64(7);
    QTest::newRow("largest u32") << "blk.4294967295.x" << qint64(4294967295);
    QTest::newRow("overflows u32") << "blk.4294967296.x" << qint64(-1);
    QTest::newRow("very long number") << "blk.99999999999999999999999.x" << qint64(-1);
    QTest::newRow("token_embd") << "token_embd.weight" << qint64(-1);
    QTest::newRow("output") << "output.weight" << qint64(-1);
    QTest::newRow("no number") << "blk..x" << qint64(-1);
    QTest::newRow("not a number") << "blk.a.x" << qint64(-1);
    QTest::newRow("negative") << "blk.-1.x" << qint64(-1);
    QTest::newRow("no dot after number") << "blk.3" << qint64(-1);
    QTest::newRow("letters after number") << "blk.3a.x" << qint64(-1);
    QTest::newRow("prefix inside name") << "enc.blk.3.x" << qint64(-1);
    QTest::newRow("empty") << "" << qint64(-1);
}

void TestVocabulary::layerIndexFromName()
{
    QFETCH(QString, name);
    QFETCH(qint64, layer);
    const std::string utf8 = name.toStdString();
    const auto parsed = gguf::layerIndexFromName(utf8);
    QCOMPARE(parsed.has_value() ? qint64(*parsed) : qint64(-1), layer);
}

void TestVocabulary::breakdownMatchesManifest_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : {"tiny-moe-Q4_K.gguf", "tiny-moe-Q2_K.gguf", "tiny-moe-F16.gguf", "tiny-llama-Q4_K.gguf",
                             "tiny-llama-F32.gguf", "all-types.gguf", "no-tensors.gguf", "v1.gguf"})
        QTest::newRow(file) << QString::fromLatin1(file);
}

// The breakdown must equal the manifest's tensors grouped by the layer number in their names.
void TestVocabulary::breakdownMatchesManifest()
{
    QFETCH(QString, file);
    const auto manifest = loadFixtureManifest(file);
    QVERIFY(manifest);
    const auto model = openFixtureModel(file);
    QVERIFY(model);

    // layer (-1 = outside any layer) -> type id -> bytes
    std::map<qint64, std::map<std::uint32_t, std::uint64_t>> expected;
    std::set<std::uint32_t> expectedTypes;
    const QRegularExpression layerName(QStringLiteral("^blk\\.(\\d+)\\."));
    for (const ManifestTensor& tensor : manifest->tensors) {
        const auto match = layerName.match(tensor.name);
        expected[match.hasMatch() ? match.captured(1).toLongLong() : -1][tensor.typeId] += tensor.nbytes;
        expectedTypes.insert(tensor.typeId);
    }

    const gguf::LayerBreakdown breakdown = gguf::computeLayerBreakdown(model->tensors());
    QCOMPARE(breakdown.layers.size(), expected.size());
    QCOMPARE(std::set<std::uint32_t>(breakdown.typeIds.begin(), breakdown.typeIds.end()), expectedTypes);
    QVERIFY(std::is_sorted(breakdown.typeIds.begin(), breakdown.typeIds.end()));
    QCOMPARE(breakdown.hasOtherTensors(), expected.count(-1) == 1);
    qint64 previousLayer = -1;
    for (const gguf::LayerBytes& layer : breakdown.layers) {
        const qint64 key = layer.layer ? qint64(*layer.layer) : -1;
        if (layer.layer) {
            QVERIFY2(key > previousLayer, "layers out of order");
            previousLayer = key;
        } else {
            QVERIFY2(&layer == &breakdown.layers.back(), "the non-layer entry must come last");
        }
        QVERIFY(expected.count(key));
        const auto& types = expected.at(key);
        QCOMPARE(layer.types.size(), types.size());
        std::uint64_t total = 0;
        for (const auto& [typeId, bytes] : types) {
            QCOMPARE(layer.bytesOfType(typeId), bytes);
            total += bytes;
        }
        QCOMPARE(layer.byteCount, total);
    }
}

void TestVocabulary::tinyMoeBreakdown()
{
    const auto model = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
    QVERIFY(model);
    const gguf::LayerBreakdown breakdown = gguf::computeLayerBreakdown(model->tensors());
    QCOMPARE(breakdown.layers.size(), std::size_t(3));
    QCOMPARE(breakdown.layers[0].layer, std::optional<std::uint32_t>(0));
    QCOMPARE(breakdown.layers[1].layer, std::optional<std::uint32_t>(1));
    QVERIFY(!breakdown.layers[2].layer);
    QCOMPARE(breakdown.typeIds, (std::vector<std::uint32_t>{0, 12}));
    for (int layer = 0; layer < 2; ++layer) {
        // 4 attention matrices [256,256] and 3 expert tensors [256,512,8] in q4_K; 2 norms and the router in f32.
        QCOMPARE(breakdown.layers[layer].bytesOfType(12), std::uint64_t(4 * 36864 + 3 * 589824));
        QCOMPARE(breakdown.layers[layer].bytesOfType(0), std::uint64_t(2 * 1024 + 8192));
        QCOMPARE(breakdown.layers[layer].tensorCount, std::uint64_t(10));
    }
    QCOMPARE(breakdown.layers[2].bytesOfType(12), std::uint64_t(2 * 73728));  // token_embd, output
    QCOMPARE(breakdown.layers[2].bytesOfType(0), std::uint64_t(1024));        // output_norm
    QCOMPARE(breakdown.layers[2].tensorCount, std::uint64_t(3));
}

void TestVocabulary::layerNumbersFromNamesStaySparse()
{
    const std::vector<gguf::TensorInfo> tensors{tensorNamed("blk.4000000000.a", 1, 10), tensorNamed("token_embd.weight", 0, 5),
                                                tensorNamed("blk.0.a", 1, 3), tensorNamed("blk.0.b", 12, 4),
                                                tensorNamed("blk.4000000000.b", 1, 6)};
    const gguf::LayerBreakdown breakdown = gguf::computeLayerBreakdown(tensors);
    QCOMPARE(breakdown.layers.size(), std::size_t(3));
    QCOMPARE(*breakdown.layers[0].layer, 0u);
    QCOMPARE(breakdown.layers[0].byteCount, std::uint64_t(7));
    QCOMPARE(*breakdown.layers[1].layer, 4000000000u);
    QCOMPARE(breakdown.layers[1].bytesOfType(1), std::uint64_t(16));
    QCOMPARE(breakdown.layers[1].bytesOfType(12), std::uint64_t(0));
    QCOMPARE(breakdown.layers[2].byteCount, std::uint64_t(5));
    QCOMPARE(breakdown.typeIds, (std::vector<std::uint32_t>{0, 1, 12}));
}

void TestVocabulary::tokensMatchManifest_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : {"tiny-llama-Q4_K.gguf", "tiny-moe-F16.gguf", "v1.gguf", "no-tensors.gguf", "bad-base.gguf",
                             "split-00001-of-00002.gguf"})
        QTest::newRow(file) << QString::fromLatin1(file);
}

void TestVocabulary::tokensMatchManifest()
{
    QFETCH(QString, file);
    const auto manifest = loadFixtureManifest(file);
    QVERIFY(manifest);
    const auto model = openFixtureModel(file);
    QVERIFY(model);
    QVERIFY(gguf::Vocabulary::hasTokens(*model));
    auto vocabulary = gguf::Vocabulary::build(model);
    QVERIFY2(vocabulary, vocabulary ? "" : vocabulary.error().toString().c_str());

    const JsonNode* tokens = manifest->metadata.member("tokenizer.ggml.tokens");
    QVERIFY(tokens);
    const qsizetype length = tokens->kind == JsonNode::Kind::Object ? tokens->member("length")->text.toLongLong()
                                                                     : qsizetype(tokens->items.size());
    QCOMPARE(qsizetype(vocabulary->size()), length);
    const QList<QByteArray> expectedTexts = manifestStrings(*tokens);
    for (qsizetype id = 0; id < expectedTexts.size(); ++id)
        QCOMPARE(QByteArray::fromStdString(std::string(vocabulary->text(std::size_t(id)))), expectedTexts[id]);

    if (const JsonNode* types = manifest->metadata.member("tokenizer.ggml.token_type")) {
        const QList<double> expectedTypes = manifestNumbers(*types);
        for (qsizetype id = 0; id < expectedTypes.size(); ++id)
            QCOMPARE(vocabulary->tokenType(std::size_t(id)), std::optional<std::int64_t>(std::int64_t(expectedTypes[id])));
    } else {
        QVERIFY(!vocabulary->hasTokenTypes());
        QCOMPARE(vocabulary->tokenType(0), std::optional<std::int64_t>());
    }
    if (const JsonNode* scores = manifest->metadata.member("tokenizer.ggml.scores")) {
        const QList<double> expectedScores = manifestNumbers(*scores);
        for (qsizetype id = 0; id < expectedScores.size(); ++id)
            QCOMPARE(vocabulary->score(std::size_t(id)), std::optional<double>(expectedScores[id]));
    } else {
        QVERIFY(!vocabulary->hasScores());
    }
}

// The offset index must land on the same token as MetadataValue's own walk from the front.
void TestVocabulary::everyTokenMatchesSequentialWalk()
{
    const auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(model);
    auto vocabulary = gguf::Vocabulary::build(model);
    QVERIFY(vocabulary);
    const gguf::MetadataValue& tokens = model->findMetadata("tokenizer.ggml.tokens")->value;
    const gguf::MetadataValue& scores = model->findMetadata("tokenizer.ggml.scores")->value;
    const gguf::MetadataValue& types = model->findMetadata("tokenizer.ggml.token_type")->value;
    QCOMPARE(vocabulary->size(), std::size_t(512));
    for (std::size_t id = 0; id < vocabulary->size(); ++id) {
        QCOMPARE(vocabulary->text(id), tokens.element(id).toStringView());
        QCOMPARE(vocabulary->score(id), scores.element(id).toDouble());
        QCOMPARE(vocabulary->tokenType(id), types.element(id).toInt());
    }
    QCOMPARE(vocabulary->text(259), std::string_view("\u2581the"));
    QCOMPARE(*vocabulary->score(259), -1.25);
}

// tiny-llama has <unk>, <s>, </s> and then the 256 byte tokens <0x00>..<0xFF> (fixtures README).
void TestVocabulary::byteTokensAreFound()
{
    const auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(model);
    auto vocabulary = gguf::Vocabulary::build(model);
    QVERIFY(vocabulary);
    const std::vector<std::uint32_t> ids = vocabulary->matchingIds([](std::string_view text) { return text.find("<0x") == 0; });
    QCOMPARE(ids.size(), std::size_t(256));
    for (std::uint32_t k = 0; k < 256; ++k) {
        QCOMPARE(ids[k], k + 3);
        QCOMPARE(vocabulary->tokenType(ids[k]), std::optional<std::int64_t>(6));
        const QString hex = QString::number(k, 16).toUpper().rightJustified(2, QLatin1Char('0'));
        QCOMPARE(QString::fromStdString(vocabulary->displayText(ids[k])), QStringLiteral("<0x") + hex + QLatin1Char('>'));
    }
    // The pass sees display text: the token holding a real tab is found by the two characters "\t".
    const auto tab = vocabulary->matchingIds([](std::string_view text) { return text.find("\\t") != std::string_view::npos; });
    QCOMPARE(tab, std::vector<std::uint32_t>{298});
    QCOMPARE(vocabulary->text(298), std::string_view("\u2581tab\there"));
}

void TestVocabulary::displayText_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QByteArray>("shown");
    QTest::newRow("sentencepiece space") << QByteArray("\u2581the") << QByteArray("\u2581the");
    QTest::newRow("gpt2 space") << QByteArray("\u0120the") << QByteArray("\u0120the");
    QTest::newRow("byte token") << QByteArray("<0x0A>") << QByteArray("<0x0A>");
    QTest::newRow("tab") << QByteArray("a\tb") << QByteArray("a\\tb");
    QTest::newRow("newline") << QByteArray("\n") << QByteArray("\\n");
    QTest::newRow("backslash") << QByteArray("a\\b") << QByteArray("a\\\\b");
    QTest::newRow("bell") << QByteArray("\x07") << QByteArray("\\x07");
    QTest::newRow("delete") << QByteArray("\x7f") << QByteArray("\\x7f");
    QTest::newRow("invalid byte") << QByteArray("a\xff") << QByteArray("a\\xff");
    QTest::newRow("zero-width space") << QByteArray("a\u200Bb") << QByteArray("a\\u{200b}b");
    QTest::newRow("zero-width joiner") << QByteArray("\u200D") << QByteArray("\\u{200d}");
    QTest::newRow("byte order mark") << QByteArray("\uFEFF") << QByteArray("\\u{feff}");
    QTest::newRow("right-to-left override") << QByteArray("\u202E") << QByteArray("\\u{202e}");
    QTest::newRow("no-break space") << QByteArray("\u00A0") << QByteArray("\\u{a0}");
    QTest::newRow("soft hyphen") << QByteArray("\u00AD") << QByteArray("\\u{ad}");
    QTest::newRow("C1 control") << QByteArray("\xC2\x85") << QByteArray("\\u{85}");
    QTest::newRow("accents, CJK, emoji") << QByteArray("café 日本 😀") << QByteArray("café 日本 😀");
    QTest::newRow("empty") << QByteArray() << QByteArray();
}

void TestVocabulary::displayText()
{
    QFETCH(QByteArray, raw);
    QFETCH(QByteArray, shown);
    QCOMPARE(QByteArray::fromStdString(gguf::tokenDisplayText(std::string_view(raw.constData(), std::size_t(raw.size())))), shown);
}

void TestVocabulary::tokenTypeNames_data()
{
    QTest::addColumn<qint64>("type");
    QTest::addColumn<QString>("name");
    QTest::newRow("0") << qint64(0) << "undefined";
    QTest::newRow("1") << qint64(1) << "normal";
    QTest::newRow("2") << qint64(2) << "unknown";
    QTest::newRow("3") << qint64(3) << "control";
    QTest::newRow("4") << qint64(4) << "user-defined";
    QTest::newRow("5") << qint64(5) << "unused";
    QTest::newRow("6") << qint64(6) << "byte";
    QTest::newRow("7") << qint64(7) << "type 7";
    QTest::newRow("-1") << qint64(-1) << "type -1";
}

void TestVocabulary::tokenTypeNames()
{
    QFETCH(qint64, type);
    QFETCH(QString, name);
    QCOMPARE(QString::fromStdString(gguf::tokenTypeName(type)), name);
}

void TestVocabulary::specialTokens()
{
    const auto manifest = loadFixtureManifest(QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(manifest);
    const auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(model);
    const std::vector<gguf::SpecialToken> special = gguf::Vocabulary::specialTokens(*model);
    QCOMPARE(special.size(), std::size_t(3));
    const char* roles[] = {"bos", "eos", "unk"};
    for (std::size_t k = 0; k < special.size(); ++k) {
        QCOMPARE(special[k].role, std::string(roles[k]));
        const JsonNode* value = manifest->metadata.member(QByteArray::fromStdString(special[k].key));
        QVERIFY2(value, special[k].key.c_str());
        QCOMPARE(special[k].id, value->text.toLongLong());
    }
    QVERIFY(gguf::Vocabulary::specialTokens(*openFixtureModel(QStringLiteral("kv-all-types.gguf"))).empty());
}

void TestVocabulary::fileWithoutTokens()
{
    for (const char* file : {"kv-all-types.gguf", "kv-nested-arrays.gguf", "all-types.gguf", "be.gguf"}) {
        const auto model = openFixtureModel(QString::fromLatin1(file));
        QVERIFY(model);
        QVERIFY2(!gguf::Vocabulary::hasTokens(*model), file);
        const auto vocabulary = gguf::Vocabulary::build(model);
        QVERIFY2(!vocabulary, file);
        QVERIFY(vocabulary.error().message.find("tokenizer.ggml.tokens") != std::string::npos);
    }
}

void TestVocabulary::tokensOfTheWrongType()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::uint32_t numbers[] = {1, 2, 3};
    auto array = gguf::EncodedValue::fixedArray(gguf::ValueType::U32, std::string_view(reinterpret_cast<const char*>(numbers), sizeof numbers));
    QVERIFY(array);
    for (const auto& [name, value] : {std::pair{"u32-array.gguf", array.value()}, std::pair{"string.gguf", gguf::EncodedValue::string("abc")}}) {
        const auto model = gguf::Model::open(writeFile(dir, QString::fromLatin1(name), {{"tokenizer.ggml.tokens", value}}).toStdString());
        QVERIFY(model);
        QVERIFY(gguf::Vocabulary::hasTokens(**model));
        const auto vocabulary = gguf::Vocabulary::build(model.value());
        QVERIFY2(!vocabulary, name);
        QVERIFY2(vocabulary.error().message.find("not an array of strings") != std::string::npos, vocabulary.error().message.c_str());
    }
}

// Scores shorter than the token list and token types stored as strings must not be read past
// their end or as numbers.
void TestVocabulary::shortAndNonNumericSideArrays()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::vector<std::string> tokens{"a", "bb", "ccc"};
    const std::vector<std::string> typeNames{"1", "1", "1"};
    const float scores[] = {-0.5f};
    auto scoreArray = gguf::EncodedValue::fixedArray(gguf::ValueType::F32, std::string_view(reinterpret_cast<const char*>(scores), sizeof scores));
    QVERIFY(scoreArray);
    const QString path = writeFile(dir, QStringLiteral("short.gguf"),
                                   {{"tokenizer.ggml.tokens", gguf::EncodedValue::stringArray(tokens)},
                                    {"tokenizer.ggml.scores", scoreArray.value()},
                                    {"tokenizer.ggml.token_type", gguf::EncodedValue::stringArray(typeNames)}});
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY(model);
    const auto vocabulary = gguf::Vocabulary::build(model.value());
    QVERIFY(vocabulary);
    QCOMPARE(vocabulary->size(), std::size_t(3));
    QCOMPARE(vocabulary->text(2), std::string_view("ccc"));
    QCOMPARE(vocabulary->score(0), std::optional<double>(-0.5));
    QCOMPARE(vocabulary->score(1), std::optional<double>());
    QVERIFY(!vocabulary->hasTokenTypes());
    QCOMPARE(vocabulary->tokenType(0), std::optional<std::int64_t>());
}

void TestVocabulary::cancellation()
{
    const auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(model);
    const std::atomic<bool> cancelled{true};
    const auto refused = gguf::Vocabulary::build(model, &cancelled);
    QVERIFY(!refused);
    QCOMPARE(refused.error().message, std::string("cancelled"));
    const auto vocabulary = gguf::Vocabulary::build(model);
    QVERIFY(vocabulary);
    QVERIFY(vocabulary->matchingIds([](std::string_view) { return true; }, &cancelled).empty());
    QCOMPARE(vocabulary->matchingIds([](std::string_view) { return true; }).size(), std::size_t(512));
}

QTEST_GUILESS_MAIN(TestVocabulary)
#include "tst_vocabulary.moc"
