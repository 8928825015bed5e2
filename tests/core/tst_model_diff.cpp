// core/diff against computations of its own: the metadata differences of fixture pairs against
// the two manifests compared as JSON, tensor verdicts against raw bytes and dequantized values
// compared here, error figures against sums in long double over the dequantized values, layer
// rows against the tensors counted here; arrays element by element; the line diff.

#include "TestPools.h"
#include "Fixtures.h"
#include "Manifest.h"
#include "OpenFixture.h"
#include "core/compare/ModelComparison.h"
#include "core/diff/ModelDiff.h"
#include "core/edit/ModelSaver.h"
#include "core/edit/ValueText.h"
#include "core/gguf/Dequantize.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

using namespace testsupport;

namespace {

std::vector<float> values(const gguf::TensorInfo& tensor)
{
    std::vector<float> out(tensor.elementCount());
    const auto status = gguf::dequantizeElements(tensor, 0, out.size(), out);
    if (!status)
        qFatal("cannot dequantize %s", std::string(tensor.name).c_str());
    return out;
}

// Keys of a manifest's "metadata" object -> the value's JSON text (and type).
std::map<QString, QByteArray> manifestMetadata(const QString& fixture)
{
    QFile file(fixturePath(fixture + ".json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("no manifest for %s", qPrintable(fixture));
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    const QJsonObject metadata = root.value("metadata").toObject();
    const QJsonObject types = root.value("metadata_types").toObject();
    std::map<QString, QByteArray> out;
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
        out[it.key()] = types.value(it.key()).toString().toUtf8() + " " + QJsonDocument(QJsonObject{{"v", it.value()}}).toJson(QJsonDocument::Compact);
    return out;
}

using Kind = gguf::MetadataDifference::Kind;

std::map<QString, Kind> metadataVerdicts(const gguf::ModelDiff& diff)
{
    std::map<QString, Kind> out;
    for (const auto& d : diff.metadata)
        out[QString::fromStdString(d.key)] = d.kind;
    return out;
}

std::map<QString, Kind> expectedMetadataVerdicts(const QString& a, const QString& b)
{
    const auto ma = manifestMetadata(a);
    const auto mb = manifestMetadata(b);
    std::map<QString, Kind> out;
    for (const auto& [key, value] : ma) {
        const auto other = mb.find(key);
        if (other == mb.end())
            out[key] = Kind::Removed;
        else if (other->second != value)
            out[key] = Kind::Changed;
    }
    for (const auto& [key, value] : mb)
        if (!ma.count(key))
            out[key] = Kind::Added;
    return out;
}

std::shared_ptr<const gguf::Model> open(const QString& name)
{
    return openFixtureModel(name);
}

}  // namespace

class TestModelDiff : public QObject {
    Q_OBJECT

private slots:
    void metadataMatchesTheManifests_data();
    void metadataMatchesTheManifests();
    void tensorVerdictsAndFiguresMatchOwnComputation_data();
    void tensorVerdictsAndFiguresMatchOwnComputation();
    void byteOrderTwinsHaveIdenticalValues();
    void splitLayoutAgainstOneFile();
    void editedCopyShowsExactlyTheEdits();
    void addedRemovedAndReshapedTensors();
    void arraysByElement();
    void lineDiff();
    void threadCountDoesNotChangeFigures();
    void inputRewrittenWhileOpenFailsTheDiff();

private:
    QTemporaryDir m_dir;
};

void TestModelDiff::metadataMatchesTheManifests_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::newRow("F32 vs Q8_0") << "tiny-llama-F32.gguf" << "tiny-llama-Q8_0.gguf";
    QTest::newRow("llama vs moe") << "tiny-llama-Q4_K.gguf" << "tiny-moe-Q4_K.gguf";
    QTest::newRow("kv-all-types vs be") << "kv-all-types.gguf" << "be.gguf";
    QTest::newRow("v1 vs v2") << "v1.gguf" << "v2.gguf";
    QTest::newRow("v2 vs align64") << "v2.gguf" << "align64.gguf";
    QTest::newRow("split vs one") << "split-00001-of-00002.gguf" << "tiny-llama-Q4_K.gguf";
}

void TestModelDiff::metadataMatchesTheManifests()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    const auto ma = open(a);
    const auto mb = open(b);
    QVERIFY(ma && mb);
    const auto verdicts = metadataVerdicts({gguf::diffMetadata(*ma, *mb), {}, {}, {}});
    const auto expected = expectedMetadataVerdicts(a, b);
    QCOMPARE(verdicts.size(), expected.size());
    for (const auto& [key, kind] : expected) {
        QVERIFY2(verdicts.count(key), qPrintable(key));
        QCOMPARE(int(verdicts.at(key)), int(kind));
    }
}

void TestModelDiff::tensorVerdictsAndFiguresMatchOwnComputation_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::newRow("F32 vs Q8_0") << "tiny-llama-F32.gguf" << "tiny-llama-Q8_0.gguf";
    QTest::newRow("Q4_K vs Q2_K") << "tiny-llama-Q4_K.gguf" << "tiny-llama-Q2_K.gguf";
    QTest::newRow("F16 vs IQ4_XS") << "tiny-llama-F16.gguf" << "tiny-llama-IQ4_XS.gguf";
    QTest::newRow("moe F16 vs Q4_K") << "tiny-moe-F16.gguf" << "tiny-moe-Q4_K.gguf";
}

void TestModelDiff::tensorVerdictsAndFiguresMatchOwnComputation()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    const auto ma = open(a);
    const auto mb = open(b);
    QVERIFY(ma && mb);
    const auto diff = gguf::diffModels(ma, mb);
    QVERIFY2(diff, diff ? "" : diff.error().toString().c_str());
    QCOMPARE(diff->tensors.size(), ma->tensors().size());
    std::map<std::optional<std::uint32_t>, std::array<std::size_t, 4>> layerCounts;
    for (const gguf::TensorDifference& d : diff->tensors) {
        QCOMPARE(int(d.kind), int(gguf::TensorDifference::Kind::InBoth));
        const bool sameBytes = d.a->typeId == d.b->typeId && d.a->nbytes == d.b->nbytes
                            && std::memcmp(d.a->data, d.b->data, static_cast<std::size_t>(d.a->nbytes)) == 0;
        const std::vector<float> va = values(*d.a);
        const std::vector<float> vb = values(*d.b);
        long double squared = 0, reference = 0, product = 0, otherSquared = 0;
        double maxAbs = 0;
        for (std::size_t i = 0; i < va.size(); ++i) {
            const long double e = static_cast<long double>(vb[i]) - va[i];
            squared += e * e;
            reference += static_cast<long double>(va[i]) * va[i];
            otherSquared += static_cast<long double>(vb[i]) * vb[i];
            product += static_cast<long double>(va[i]) * vb[i];
            maxAbs = std::max(maxAbs, static_cast<double>(std::fabs(e)));
        }
        const bool sameValues = std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)) == 0;
        const gguf::TensorContent expected = sameBytes    ? gguf::TensorContent::IdenticalBytes
                                           : sameValues ? gguf::TensorContent::IdenticalValues
                                                        : gguf::TensorContent::Different;
        QCOMPARE(int(d.content), int(expected));
        ++layerCounts[d.layer][static_cast<std::size_t>(expected)];
        if (sameBytes) {
            QVERIFY(!d.metrics);
            continue;
        }
        QVERIFY(d.metrics);
        const double n = static_cast<double>(va.size());
        const double rmse = std::sqrt(static_cast<double>(squared) / n);
        QVERIFY2(std::fabs(d.metrics->rmse - rmse) <= 1e-9 * rmse + 1e-15, qPrintable(QString::number(d.metrics->rmse) + " vs " + QString::number(rmse)));
        QCOMPARE(d.metrics->maxAbsError, maxAbs);
        const double relative = rmse / std::sqrt(static_cast<double>(reference) / n);
        QVERIFY(std::fabs(d.metrics->relativeRmse - relative) <= 1e-9 * relative);
        const double cosine = static_cast<double>(product / std::sqrt(reference * otherSquared));
        QVERIFY(std::fabs(d.metrics->cosineSimilarity - cosine) <= 1e-9);
    }
    // One layer row per blk.N, plus one for the rest, each counting its tensors as above.
    QCOMPARE(diff->layers.size(), layerCounts.size());
    for (const gguf::LayerDifference& layer : diff->layers) {
        const auto& counts = layerCounts.at(layer.layer);
        QCOMPARE(layer.identicalBytes, counts[0]);
        QCOMPARE(layer.identicalValues, counts[1]);
        QCOMPARE(layer.different, counts[2]);
        QCOMPARE(layer.tensors, counts[0] + counts[1] + counts[2] + counts[3]);
        if (layer.different > 0)
            QVERIFY(layer.metrics.rmse > 0);
    }
    QVERIFY(diff->contentCount(gguf::TensorContent::Different) > 0);
}

void TestModelDiff::byteOrderTwinsHaveIdenticalValues()
{
    // be.gguf is be-twin-le.gguf with every number byte-swapped; mxfp4 has nothing to swap.
    const auto be = open("be.gguf");
    const auto le = open("be-twin-le.gguf");
    QVERIFY(be && le);
    const auto diff = gguf::diffModels(le, be);
    QVERIFY2(diff, diff ? "" : diff.error().toString().c_str());
    QVERIFY(diff->metadata.empty());
    // Bytes of different byte orders never count as identical bytes (the same bytes would be other
    // f32 values), even for mxfp4, whose bytes are the same: its values are compared too.
    for (const gguf::TensorDifference& d : diff->tensors)
        QCOMPARE(int(d.content), int(gguf::TensorContent::IdenticalValues));
    QCOMPARE(diff->contentCount(gguf::TensorContent::IdenticalValues), le->tensors().size());
    QVERIFY(!diff->identical());
}

void TestModelDiff::splitLayoutAgainstOneFile()
{
    const auto split = open("split-00001-of-00002.gguf");
    const auto whole = open("tiny-llama-Q4_K.gguf");
    QVERIFY(split && whole);
    const auto diff = gguf::diffModels(whole, split);
    QVERIFY(diff);
    QCOMPARE(diff->contentCount(gguf::TensorContent::IdenticalBytes), whole->tensors().size());
    std::set<std::string> added;
    for (const auto& d : diff->metadata) {
        QCOMPARE(int(d.kind), int(Kind::Added));
        added.insert(d.key);
    }
    QCOMPARE(added, (std::set<std::string>{"split.no", "split.count", "split.tensors.count"}));
}

void TestModelDiff::editedCopyShowsExactlyTheEdits()
{
    const auto source = open("kv-all-types.gguf");
    QVERIFY(source);
    const gguf::MetadataEntry* strings = nullptr;
    const gguf::MetadataEntry* floats = nullptr;
    for (const auto& entry : source->metadata()) {
        if (entry.value.isArray() && entry.value.elementType() == gguf::ValueType::String && entry.value.arrayLength() >= 10)
            strings = &entry;
        if (entry.value.isArray() && entry.value.elementType() == gguf::ValueType::F32 && entry.value.arrayLength() >= 50)
            floats = &entry;
    }
    QVERIFY(strings && floats);
    // Strings: elements 3 and 7 changed. Floats: element 5 changed and two appended.
    std::vector<std::string> words;
    for (std::uint64_t i = 0; i < strings->value.arrayLength(); ++i)
        words.emplace_back(strings->value.element(i).toStringView());
    words[3] += "!";
    words[7] = "changed";
    std::string floatText = "[";
    for (std::uint64_t i = 0; i < floats->value.arrayLength(); ++i)
        floatText += (i ? ", " : "") + (i == 5 ? std::string("123.5") : gguf::valueAsText(floats->value.element(i)));
    floatText += ", 1, 2]";
    gguf::MetadataEdits edits;
    edits.set(strings->key, gguf::EncodedValue::stringArray(words));
    edits.set(floats->key, *gguf::parseValueText(floatText, "arr[f32]"));
    const std::string templateA = "line one\nline two\nline three\nline four\nline five";
    const std::string templateB = "line one\nline two\nline 3\nline four\nline five\nline six";
    edits.set("test.template", gguf::EncodedValue::string(templateB));
    edits.remove(std::string(source->metadata().front().key));
    edits.set("test.new", gguf::EncodedValue::u32(5));

    // A: the source with the template's first version added, so both sides have it.
    gguf::MetadataEdits base;
    base.set("test.template", gguf::EncodedValue::string(templateA));
    const QString aPath = m_dir.filePath("base.gguf");
    const QString bPath = m_dir.filePath("edited.gguf");
    QVERIFY(gguf::saveModelAs(*source, base, aPath.toStdString()));
    const auto a = openModelAt(aPath);
    QVERIFY(a);
    QVERIFY(gguf::saveModelAs(*a, edits, bPath.toStdString()));
    const auto b = openModelAt(bPath);
    QVERIFY(b);

    const auto diff = gguf::diffModels(a, b);
    QVERIFY(diff);
    QCOMPARE(diff->metadata.size(), std::size_t{5});
    QCOMPARE(diff->contentCount(gguf::TensorContent::IdenticalBytes), a->tensors().size());
    for (const auto& d : diff->metadata) {
        if (d.key == std::string(strings->key)) {
            QVERIFY(d.array);
            QCOMPARE(d.array->differingElements, 2u);
            QCOMPARE(d.array->firstDifference, std::optional<std::uint64_t>(3));
            QCOMPARE(d.array->lengthA, d.array->lengthB);
        } else if (d.key == std::string(floats->key)) {
            QVERIFY(d.array);
            QCOMPARE(d.array->differingElements, 1u);
            QCOMPARE(d.array->firstDifference, std::optional<std::uint64_t>(5));
            QCOMPARE(d.array->lengthB, d.array->lengthA + 2);
        } else if (d.key == "test.template") {
            QCOMPARE(int(d.kind), int(Kind::Changed));
            std::vector<std::string> changed;
            for (const auto& line : d.textDiff)
                if (line.op == gguf::TextDiffLine::Op::Removed || line.op == gguf::TextDiffLine::Op::Added)
                    changed.push_back(std::string(1, char(line.op)) + line.text);
            QCOMPARE(changed, (std::vector<std::string>{"-line three", "+line 3", "+line six"}));
        } else if (d.key == "test.new") {
            QCOMPARE(int(d.kind), int(Kind::Added));
            QCOMPARE(d.valueB, std::string("5"));
        } else {
            QCOMPARE(d.key, std::string(source->metadata().front().key));
            QCOMPARE(int(d.kind), int(Kind::Removed));
        }
    }
}

void TestModelDiff::addedRemovedAndReshapedTensors()
{
    // bad-base (a.f32 [32,2], b.q4_K [256,2], c.f16 [64]) against its odd variants.
    const auto base = open("bad-base.gguf");
    const auto dimZero = open("odd/dim_zero.gguf");     // b.q4_K [256, 0]
    const auto unknown = open("odd/unknown_tensor_type_250.gguf");
    QVERIFY(base && dimZero && unknown);
    const auto reshaped = gguf::diffModels(base, dimZero);
    QVERIFY2(reshaped, reshaped ? "" : reshaped.error().toString().c_str());
    QCOMPARE(reshaped->tensorCount(gguf::TensorDifference::Kind::ShapeChanged), std::size_t{1});
    QCOMPARE(reshaped->contentCount(gguf::TensorContent::IdenticalBytes), std::size_t{2});
    const auto retyped = gguf::diffModels(base, unknown);
    QVERIFY2(retyped, retyped ? "" : retyped.error().toString().c_str());
    QCOMPARE(retyped->contentCount(gguf::TensorContent::NotComparable), std::size_t{1});
    const auto others = gguf::diffModels(base, open("tiny-llama-Q4_K.gguf"));
    QVERIFY(others);
    QCOMPARE(others->tensorCount(gguf::TensorDifference::Kind::Removed), std::size_t{3});
    QCOMPARE(others->tensorCount(gguf::TensorDifference::Kind::Added), std::size_t{21});
}

void TestModelDiff::arraysByElement()
{
    const auto le = open("be-twin-le.gguf");
    const auto be = open("be.gguf");
    QVERIFY(le && be);
    for (const auto& entry : le->metadata()) {
        if (!entry.value.isArray())
            continue;
        const auto* other = be->findMetadata(entry.key);
        QVERIFY(other);
        const auto same = gguf::diffArrays(entry.value, false, other->value, true);
        QCOMPARE(same.differingElements, 0u);
        QVERIFY(!same.firstDifference);
        // Against itself read with the wrong byte order, multi-byte numbers differ (unless palindromic).
    }
}

void TestModelDiff::lineDiff()
{
    const auto lines = gguf::diffLines("a\nb\nc\nd\ne\nf\ng\nh", "a\nb\nc\nX\ne\nf\ng\nh\ni", 1);
    std::vector<std::string> shown;
    for (const auto& line : lines)
        shown.push_back(line.op == gguf::TextDiffLine::Op::Gap ? line.text : std::string(1, char(line.op)) + line.text);
    QCOMPARE(shown, (std::vector<std::string>{"@@ -3,3 +3,3 @@", " c", "-d", "+X", " e", "@@ -8,1 +8,2 @@", " h", "+i"}));
    QVERIFY(gguf::diffLines("same\ntext", "same\ntext").empty());
    // Beyond the cell budget the middle is shown as removed then added.
    const auto big = gguf::diffLines("x\n1\n2\ny", "x\n3\n4\ny", 0, 1);
    QCOMPARE(big.size(), std::size_t{5});
}

void TestModelDiff::threadCountDoesNotChangeFigures()
{
    const auto a = open("tiny-llama-Q8_0.gguf");
    const auto b = open("tiny-llama-Q4_0.gguf");
    QVERIFY(a && b);
    gguf::DiffOptions one;
    gguf::DiffOptions four;
    four.executor = &testsupport::poolOf(4);
    const auto x = gguf::diffModels(a, b, one);
    const auto y = gguf::diffModels(a, b, four);
    QVERIFY(x && y);
    std::string jx, jy;
    gguf::JsonWriter wx(jx), wy(jy);
    gguf::writeModelDiffJson(wx, *x);
    gguf::writeModelDiffJson(wy, *y);
    QCOMPARE(jx, jy);
}

void TestModelDiff::inputRewrittenWhileOpenFailsTheDiff()
{
    QTemporaryDir dir;
    const QString input = dir.filePath("b.gguf");
    QVERIFY(QFile::copy(fixturePath("tiny-llama-Q4_0.gguf"), input));
    QFile::setPermissions(input, QFile::ReadOwner | QFile::WriteOwner);
    const auto a = open("tiny-llama-Q8_0.gguf");
    const auto b = openModelAt(input);
    QVERIFY(a && b);
    {
        QFile file(input);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek(file.size() - 4096));
        QVERIFY(file.write(QByteArray(4096, '\x55')) == 4096);
    }
    const auto diff = gguf::diffModels(a, b);
    QVERIFY(!diff);
    QVERIFY2(diff.error().message.find("changed on disk") != std::string::npos, diff.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestModelDiff)
#include "tst_model_diff.moc"
