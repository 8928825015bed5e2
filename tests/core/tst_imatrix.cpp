// The importance-matrix reader, validation and statistics against the llama.cpp fixtures
// (fixtures/llama.cpp/README.md §3): sums and counts as the manifests hash them, the legacy .dat
// giving llama-quantize's exact quant_weights for the dense model (ncall 64 is a power of two),
// the per-expert routing counts the README lists, `--show-statistics` text identical to what
// llama-imatrix printed, and malformed files (made here) rejected with a message and an offset.

#include "Fixtures.h"
#include "Manifest.h"
#include "OpenFixture.h"
#include "core/base/Sha256.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ColumnImportance.h"
#include "core/imatrix/ExpertRouting.h"
#include "core/imatrix/ImatrixForModel.h"
#include "core/imatrix/ImatrixStatistics.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/write/GgufWriter.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

using namespace gguf;

namespace {

QString llamaFixture(const QString& name) { return testsupport::fixturePath("llama.cpp/" + name); }

ImportanceMatrix loadOrFail(const QString& name)
{
    auto loaded = ImportanceMatrix::load(llamaFixture(name).toStdString());
    if (!loaded)
        qFatal("cannot load %s: %s", qPrintable(name), loaded.error().toString().c_str());
    return std::move(loaded.value());
}

QByteArray floatsSha256(const std::vector<float>& values)
{
    return QByteArray::fromStdString(Sha256::toHex(Sha256::of({reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * 4})));
}

// llama-imatrix's log lines start with a timestamp and a level; the message text is the rest.
// Lines of the shell wrapper ("+ command", "rc=0") and errors ("E ...") are not its output.
QString statisticsText(const QString& path)
{
    const QString raw = QString::fromUtf8(testsupport::readWholeFile(path));
    static const QRegularExpression prefix(QStringLiteral("^\\d+\\.\\d+\\.\\d+\\.\\d+ ([IEWD]) "));
    QStringList kept;
    bool inMessage = false;
    for (const QString& line : raw.split('\n')) {
        const QRegularExpressionMatch m = prefix.match(line);
        if (m.hasMatch()) {
            inMessage = m.captured(1) == "I";
            if (inMessage)
                kept << line.mid(m.capturedLength());
        } else if (inMessage && !line.startsWith("rc=")) {
            kept << line;
        }
    }
    return kept.join('\n');
}

void appendI32(QByteArray& out, std::int32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void appendF32(QByteArray& out, float v) { out.append(reinterpret_cast<const char*>(&v), 4); }

QString writeTemp(QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// A legacy file: entries (name, ncall, values), then the chunk trailer.
QByteArray legacyFile(const std::vector<std::tuple<std::string, std::int32_t, std::vector<float>>>& entries, bool trailer = true)
{
    QByteArray out;
    appendI32(out, static_cast<std::int32_t>(entries.size()));
    for (const auto& [name, ncall, values] : entries) {
        appendI32(out, static_cast<std::int32_t>(name.size()));
        out.append(name.data(), static_cast<qsizetype>(name.size()));
        appendI32(out, ncall);
        appendI32(out, static_cast<std::int32_t>(values.size()));
        for (float v : values)
            appendF32(out, v);
    }
    if (trailer) {
        appendI32(out, 10);
        appendI32(out, 4);
        out.append("data");
    }
    return out;
}

struct GgufImatrixTensor {
    std::string name;
    std::uint32_t typeId = 0;
    std::vector<std::int64_t> ne;
    std::vector<float> values;  // f32 payload (typeId 0 only)
};

// A GGUF imatrix written with the project's writer; `keys` decides which imatrix keys exist.
QString ggufImatrix(QTemporaryDir& dir, const QString& name, const std::vector<GgufImatrixTensor>& tensors,
                    bool withDatasets = true, bool chunkCountU32 = true)
{
    GgufWriter writer;
    writer.setValue("general.type", EncodedValue::string("imatrix"));
    if (withDatasets) {
        const std::vector<std::string> datasets{"calibration.txt"};
        writer.setValue("imatrix.datasets", EncodedValue::stringArray(datasets));
    }
    writer.setValue("imatrix.chunk_count", chunkCountU32 ? EncodedValue::u32(10) : EncodedValue::i32(10));
    writer.setValue("imatrix.chunk_size", EncodedValue::u32(512));
    for (const GgufImatrixTensor& t : tensors) {
        const std::vector<float> values = t.values;
        const std::uint32_t typeId = t.typeId;
        std::uint64_t elements = 1;
        for (std::int64_t n : t.ne)
            elements *= static_cast<std::uint64_t>(n);
        Status added = writer.addTensor(TensorSpec{t.name, typeId, t.ne}, [values, typeId, elements](ByteSink& sink) -> Status {
            if (typeId == 0)
                return sink.write(values.data(), values.size() * 4);
            const std::vector<std::uint16_t> halves(elements, 0x3c00);
            return sink.write(halves.data(), halves.size() * 2);
        });
        if (!added)
            qFatal("addTensor: %s", added.error().toString().c_str());
    }
    const QString path = dir.filePath(name);
    if (Status written = writer.writeFile(path.toStdString()); !written)
        qFatal("write: %s", written.error().toString().c_str());
    return path;
}

std::vector<float> ramp(std::size_t n, float start = 1.0f)
{
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = start + static_cast<float>(i);
    return v;
}

}  // namespace

class TestImatrix : public QObject {
    QTemporaryDir m_dir;  // matrices made for the data-driven rows
    Q_OBJECT

private slots:
    void ggufMatchesManifest_data();
    void ggufMatchesManifest();
    void legacyHeaderAndEntries();
    void moeRoutingCounts();
    void quantWeightsGgufFormula();
    void legacyQuantWeightsEqualGgufForDenseModel();
    void legacyMoeBoundPerExpert();
    void statisticsMatchLlamaImatrix_data();
    void statisticsMatchLlamaImatrix();
    void validatesAgainstItsModel();
    void validationFindsShapeAndNameProblems();
    void validationFindsBadNumbers();
    void fitDecidesWhatIsRefusedAndWhatIsWarned_data();
    void fitDecidesWhatIsRefusedAndWhatIsWarned();
    void malformedLegacyFiles_data();
    void malformedLegacyFiles();
    void everyLegacyTruncationFails();
    void everyGgufTruncationFails();
    void malformedGgufFiles_data();
    void malformedGgufFiles();
    void zeroCountExpertGetsWeightOne();
    void routingMapAndRareExperts();
    void topColumnsAndPooledImportance();
    void fuzzSeedsLoadAndSurvive();
};

void TestImatrix::ggufMatchesManifest_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("entries");
    QTest::newRow("tiny-llama") << "tiny-llama.imatrix.gguf" << 14;
    QTest::newRow("tiny-moe") << "tiny-moe.imatrix.gguf" << 16;
}

void TestImatrix::ggufMatchesManifest()
{
    QFETCH(QString, file);
    QFETCH(int, entries);
    const ImportanceMatrix matrix = loadOrFail(file);
    QCOMPARE(matrix.format(), ImatrixFormat::Gguf);
    QCOMPARE(int(matrix.entries().size()), entries);
    QCOMPARE(matrix.chunkCount(), 64);
    QCOMPARE(matrix.chunkSize(), 128);
    QCOMPARE(matrix.datasets(), std::vector<std::string>{"/usr/share/common-licenses/GPL-3"});
    QString error;
    const auto manifest = testsupport::Manifest::load(llamaFixture(file + ".json"), &error);
    QVERIFY2(manifest, qPrintable(error));
    int checked = 0;
    for (const ImportanceEntry& entry : matrix.entries()) {
        const QString name = QString::fromStdString(entry.name);
        const testsupport::ManifestTensor* sums = manifest->findTensor(name + ".in_sum2");
        const testsupport::ManifestTensor* counts = manifest->findTensor(name + ".counts");
        QVERIFY2(sums && counts, qPrintable(name));
        QCOMPARE(floatsSha256(entry.sums), sums->sha256);
        QCOMPARE(floatsSha256(entry.counts), counts->sha256);
        QCOMPARE(entry.storedColumns, sums->ne[0]);
        QCOMPARE(entry.sumsOffset, manifest->dataOffset + sums->offset);
        QCOMPARE(matrix.find(entry.name), &entry);
        ++checked;
    }
    QCOMPARE(checked * 2, int(manifest->tensors.size()));
    QVERIFY(matrix.find("token_embd.weight") == nullptr);
    QVERIFY(matrix.find("blk.0.attn_q.weigh") == nullptr);
}

void TestImatrix::legacyHeaderAndEntries()
{
    const ImportanceMatrix llama = loadOrFail("tiny-llama.imatrix.dat");
    QCOMPARE(llama.format(), ImatrixFormat::LegacyDat);
    QCOMPARE(int(llama.entries().size()), 14);
    QCOMPARE(llama.chunkCount(), 64);
    QCOMPARE(llama.datasets(), std::vector<std::string>{"/usr/share/common-licenses/GPL-3"});
    for (const ImportanceEntry& entry : llama.entries()) {
        QVERIFY(entry.legacy);
        QCOMPARE(entry.legacyCalls, 64);
        QVERIFY(!entry.routingKnown());
    }
    const ImportanceMatrix moe = loadOrFail("tiny-moe.imatrix.dat");
    QCOMPARE(int(moe.entries().size()), 16);
    // ncall = ceil(max(counts) / chunk size): 7330 / 128 -> 58 in blk.0, 6924 / 128 -> 55 in blk.1.
    QCOMPARE(moe.find("blk.0.ffn_down_exps.weight")->legacyCalls, 58);
    QCOMPARE(moe.find("blk.1.ffn_up_exps.weight")->legacyCalls, 55);
    QCOMPARE(moe.find("blk.1.ffn_up_exps.weight")->sums.size(), std::size_t(256 * 8));
    QCOMPARE(moe.find("blk.0.attn_q.weight")->legacyCalls, 64);
}

void TestImatrix::moeRoutingCounts()
{
    const ImportanceMatrix moe = loadOrFail("tiny-moe.imatrix.gguf");
    const std::vector<double> layer0{2177, 247, 7330, 2117, 2466, 638, 891, 518};
    const std::vector<double> layer1{6765, 200, 272, 1013, 450, 6924, 66, 694};
    for (const char* projection : {"gate", "up", "down"}) {
        const ImportanceEntry* e0 = moe.find(std::string("blk.0.ffn_") + projection + "_exps.weight");
        const ImportanceEntry* e1 = moe.find(std::string("blk.1.ffn_") + projection + "_exps.weight");
        QVERIFY(e0 && e1);
        QCOMPARE(e0->tokensPerExpert(), layer0);
        QCOMPARE(e1->tokensPerExpert(), layer1);
        QCOMPARE(e0->expertCount(), std::size_t(8));
    }
    QCOMPARE(moe.find("blk.0.ffn_down_exps.weight")->columnCount(), std::size_t(512));
    QCOMPARE(moe.find("blk.0.ffn_up_exps.weight")->columnCount(), std::size_t(256));
    QCOMPARE(moe.find("blk.0.attn_q.weight")->tokensPerExpert(), std::vector<double>{8192});
}

void TestImatrix::quantWeightsGgufFormula()
{
    // llama-quantize: sums[j*ne0 + i] / counts[j], in float.
    const ImportanceMatrix moe = loadOrFail("tiny-moe.imatrix.gguf");
    const ImportanceEntry* entry = moe.find("blk.1.ffn_down_exps.weight");
    QVERIFY(entry);
    for (std::size_t e = 0; e < 8; ++e) {
        const std::vector<float> w = entry->quantWeights(e);
        QCOMPARE(w.size(), std::size_t(512));
        for (std::size_t i = 0; i < w.size(); ++i) {
            const float expected = entry->sums[e * 512 + i] / entry->counts[e];
            QCOMPARE(std::bit_cast<std::uint32_t>(w[i]), std::bit_cast<std::uint32_t>(expected));
        }
    }
    QVERIFY(entry->quantWeights(8).empty());
    // Expert 6 saw 66 tokens, expert 0 2177: dividing by the wrong count would show.
    QVERIFY(entry->quantWeights(6) != entry->quantWeights(0));
}

void TestImatrix::legacyQuantWeightsEqualGgufForDenseModel()
{
    // The .dat stores (sum / count) * 64 and llama-quantize divides by 64 again: for a power of
    // two the round trip is exact (README §4: the Q4_K_M made from either file is identical), so
    // two independent files must give bit-identical weights.
    const ImportanceMatrix gguf = loadOrFail("tiny-llama.imatrix.gguf");
    const ImportanceMatrix dat = loadOrFail("tiny-llama.imatrix.dat");
    QCOMPARE(gguf.entries().size(), dat.entries().size());
    for (const ImportanceEntry& g : gguf.entries()) {
        const ImportanceEntry* d = dat.find(g.name);
        QVERIFY2(d, g.name.c_str());
        const std::vector<float> a = g.quantWeights(0);
        const std::vector<float> b = d->quantWeights(0);
        QCOMPARE(a.size(), b.size());
        QVERIFY2(std::memcmp(a.data(), b.data(), a.size() * 4) == 0, g.name.c_str());
    }
}

void TestImatrix::legacyMoeBoundPerExpert()
{
    ImportanceMatrix dat = loadOrFail("tiny-moe.imatrix.dat");
    const auto model = testsupport::openFixtureModel("tiny-moe-F16.gguf");
    QVERIFY(model);
    ImportanceEntry* entry = dat.find("blk.0.ffn_gate_exps.weight");
    QCOMPARE(entry->expertCount(), std::size_t(1));  // unbound: one row of 8 x 256
    const ImatrixValidation validation = validateImatrix(dat, *model);
    QVERIFY2(!validation.hasErrors(), validation.issues.empty() ? "" : validation.issues.front().toString().c_str());
    QCOMPARE(entry->expertCount(), std::size_t(8));
    QCOMPARE(entry->columnCount(), std::size_t(256));
    for (std::size_t e = 0; e < 8; ++e) {
        const std::vector<float> w = entry->quantWeights(e);
        QCOMPARE(w.size(), std::size_t(256));
        for (std::size_t i = 0; i < 256; ++i)
            QCOMPARE(std::bit_cast<std::uint32_t>(w[i]), std::bit_cast<std::uint32_t>(entry->sums[e * 256 + i] / 58.0f));
    }
}

void TestImatrix::statisticsMatchLlamaImatrix_data()
{
    QTest::addColumn<QString>("imatrix");
    QTest::addColumn<QString>("output");
    QTest::newRow("tiny-llama gguf") << "tiny-llama.imatrix.gguf" << "tiny-llama.imatrix-stats.txt";
    QTest::newRow("tiny-llama dat") << "tiny-llama.imatrix.dat" << "tiny-llama.imatrix-dat-stats.txt";
    QTest::newRow("tiny-moe gguf") << "tiny-moe.imatrix.gguf" << "tiny-moe.imatrix-stats.txt";
    QTest::newRow("tiny-moe dat") << "tiny-moe.imatrix.dat" << "tiny-moe.imatrix-dat-stats.txt";
}

void TestImatrix::statisticsMatchLlamaImatrix()
{
    QFETCH(QString, imatrix);
    QFETCH(QString, output);
    const ImportanceMatrix matrix = loadOrFail(imatrix);
    const ImatrixStatistics statistics = computeImatrixStatistics(matrix);
    QCOMPARE(int(statistics.tensors.size()), int(matrix.entries().size()));
    const std::string ours = formatImatrixStatistics(statistics, "public/" + imatrix.toStdString());
    const QString expected = statisticsText(llamaFixture(output));
    QVERIFY(expected.contains("Computing statistics for"));
    const QStringList ourLines = QString::fromStdString(ours).split('\n');
    const QStringList theirLines = expected.split('\n');
    for (qsizetype i = 0; i < std::min(ourLines.size(), theirLines.size()); ++i)
        QCOMPARE(ourLines[i], theirLines[i]);
    QCOMPARE(ourLines.size(), theirLines.size());
}

void TestImatrix::validatesAgainstItsModel()
{
    for (const auto& [imatrix, modelName] : {std::pair{"tiny-llama.imatrix.gguf", "tiny-llama-F32.gguf"},
                                             std::pair{"tiny-moe.imatrix.gguf", "tiny-moe-F16.gguf"},
                                             std::pair{"tiny-llama.imatrix.dat", "tiny-llama-F32.gguf"}}) {
        ImportanceMatrix matrix = loadOrFail(imatrix);
        const auto model = testsupport::openFixtureModel(modelName);
        QVERIFY(model);
        const ImatrixValidation validation = validateImatrix(matrix, *model);
        for (const ImatrixIssue& issue : validation.issues)
            qInfo("%s", issue.toString().c_str());
        QCOMPARE(validation.count(ImatrixSeverity::Error), std::size_t(0));
        QCOMPARE(validation.count(ImatrixSeverity::Warning), std::size_t(0));
        QCOMPARE(validation.matchedEntries, matrix.entries().size());
        // Only the embeddings and the output matrix go without importance (README §3).
        std::vector<std::string> uncovered = validation.uncoveredTensors;
        std::sort(uncovered.begin(), uncovered.end());
        QCOMPARE(uncovered, (std::vector<std::string>{"output.weight", "token_embd.weight"}));
    }
}

void TestImatrix::validationFindsShapeAndNameProblems()
{
    // The dense model's imatrix against the MoE model: attention matches, the FFN does not.
    ImportanceMatrix matrix = loadOrFail("tiny-llama.imatrix.gguf");
    const auto model = testsupport::openFixtureModel("tiny-moe-F16.gguf");
    QVERIFY(model);
    const ImatrixValidation validation = validateImatrix(matrix, *model);
    bool unknownName = false;
    for (const ImatrixIssue& issue : validation.issues)
        if (issue.tensor == "blk.0.ffn_up.weight" && issue.field == "name") {
            unknownName = true;
            QCOMPARE(issue.severity, ImatrixSeverity::Warning);
            QCOMPARE(issue.offset, matrix.find("blk.0.ffn_up.weight")->sumsOffset);
        }
    QVERIFY(unknownName);
    QVERIFY(std::find(validation.uncoveredTensors.begin(), validation.uncoveredTensors.end(), "blk.0.ffn_up_exps.weight")
            != validation.uncoveredTensors.end());

    // Hand-made: columns differ from ne[0], experts from ne[2].
    QTemporaryDir dir;
    const QString path = ggufImatrix(dir, "shape.imatrix",
                                     {{"blk.0.attn_q.weight.in_sum2", 0, {128}, ramp(128)},
                                      {"blk.0.attn_q.weight.counts", 0, {1}, {10}},
                                      {"blk.0.ffn_up_exps.weight.in_sum2", 0, {256, 4}, ramp(1024)},
                                      {"blk.0.ffn_up_exps.weight.counts", 0, {1, 4}, {1, 2, 3, 4}}});
    auto loaded = ImportanceMatrix::load(path.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
    const ImatrixValidation shapes = validateImatrix(*loaded, *model);
    int found = 0;
    for (const ImatrixIssue& issue : shapes.issues) {
        if (issue.tensor == "blk.0.attn_q.weight") {
            QCOMPARE(issue.severity, ImatrixSeverity::Error);
            QCOMPARE(issue.field, std::string("shape"));
            QVERIFY2(issue.message.find("column count 128 differs from the tensor's ne[0] = 256") != std::string::npos, issue.message.c_str());
            ++found;
        }
        if (issue.tensor == "blk.0.ffn_up_exps.weight") {
            QCOMPARE(issue.severity, ImatrixSeverity::Error);
            QVERIFY2(issue.message.find("expert count 4 differs from the tensor's ne[2] = 8") != std::string::npos, issue.message.c_str());
            QCOMPARE(issue.offset, loaded->find("blk.0.ffn_up_exps.weight")->sumsOffset);
            ++found;
        }
    }
    QCOMPARE(found, 2);
}

// The one rule every user of a matrix with a model applies (fitImatrixToModel): a matrix of
// another model is refused with the reason when none of its entries names a tensor of the model
// (it used to pass with a warning, every tensor then quantized blind) or an entry's rows have
// another width (llama-quantize: "imatrix size ... is different from tensor size"); entries and
// matrices the two leave each other out are warned about, with counts and the first names, and
// the matrix is used, as llama-quantize uses it.
void TestImatrix::fitDecidesWhatIsRefusedAndWhatIsWarned_data()
{
    QTest::addColumn<QString>("imatrix");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("refusal");       // empty: used
    QTest::addColumn<QStringList>("warnings");  // each a line's start, in order
    const QString llama = QStringLiteral("tiny-llama-F32.gguf");
    const QString moe = QStringLiteral("tiny-moe-F16.gguf");
    QTest::newRow("its own model's") << llamaFixture("tiny-llama.imatrix.gguf") << llama << QString() << QStringList();
    QTest::newRow("the MoE's own, legacy") << llamaFixture("tiny-moe.imatrix.dat") << moe << QString() << QStringList();
    QTest::newRow("the MoE's on the dense model")
        << llamaFixture("tiny-moe.imatrix.gguf") << llama << QString()
        << QStringList{"the importance matrix may be of another model: 8 of its 16 entries name no tensor of this model (blk.0.ffn_down_exps.weight, "
                       "blk.0.ffn_gate_exps.weight, blk.0.ffn_gate_inp.weight, blk.0.ffn_up_exps.weight, ... (4 more)): they are unused",
                       "the importance matrix has no entry for 8 of the model's 16 matrices (blk.0.ffn_gate.weight, "};
    QTest::newRow("the dense model's on the MoE")
        << llamaFixture("tiny-llama.imatrix.gguf") << moe << QString()
        << QStringList{"the importance matrix may be of another model: 6 of its 14 entries name no tensor of this model (blk.0.ffn_down.weight, ",
                       "the importance matrix has no entry for 10 of the model's 18 matrices (blk.0.ffn_gate_inp.weight, "};
    QTest::newRow("one layer's attention only")
        << writeTemp(m_dir, "attn-q.dat", legacyFile({{"blk.0.attn_q.weight", 1, ramp(256)}})) << llama << QString()
        << QStringList{"the importance matrix has no entry for 15 of the model's 16 matrices (blk.0.attn_k.weight, blk.0.attn_v.weight, "};
    QTest::newRow("no name in common")
        << writeTemp(m_dir, "moe-only.dat", legacyFile({{"blk.0.ffn_gate_inp.weight", 1, ramp(256)}, {"blk.0.ffn_up_exps.weight", 1, ramp(2048)}}))
        << llama << "this importance matrix is of another model: none of its 2 entries names a tensor of this model" << QStringList();
    QTest::newRow("rows of another width")
        << writeTemp(m_dir, "narrow.dat", legacyFile({{"blk.0.attn_q.weight", 1, ramp(128)}, {"blk.0.attn_k.weight", 1, ramp(256)}})) << llama
        << "the importance matrix does not fit the model: error: blk.0.attn_q.weight: shape: column count 128 differs from the tensor's ne[0] = 256 "
           "(128 values, the tensor needs 256; llama-quantize stops with \"imatrix size is different from tensor size\") (at byte 35)"
        << QStringList();
}

void TestImatrix::fitDecidesWhatIsRefusedAndWhatIsWarned()
{
    QFETCH(QString, imatrix);
    QFETCH(QString, model);
    QFETCH(QString, refusal);
    QFETCH(QStringList, warnings);
    const auto opened = testsupport::openFixtureModel(model);
    QVERIFY(opened);
    const auto fit = loadImatrixForModel(imatrix.toStdString(), *opened);
    if (!refusal.isEmpty()) {
        QVERIFY(!fit);
        QCOMPARE(QString::fromStdString(fit.error().toString()), refusal);
        return;
    }
    QVERIFY2(fit, fit ? "" : fit.error().toString().c_str());
    const std::vector<std::string> said = fit->fit.warnings();
    QCOMPARE(said.size(), std::size_t(warnings.size()));
    for (qsizetype i = 0; i < warnings.size(); ++i)
        QVERIFY2(QString::fromStdString(said[std::size_t(i)]).startsWith(warnings[i]), said[std::size_t(i)].c_str());
}

void TestImatrix::validationFindsBadNumbers()
{
    QTemporaryDir dir;
    std::vector<float> sums = ramp(256);
    sums[37] = std::numeric_limits<float>::quiet_NaN();
    sums[40] = std::numeric_limits<float>::infinity();
    sums[41] = -2.0f;
    std::vector<float> expertSums = ramp(256 * 8);
    const QString path = ggufImatrix(dir, "numbers.imatrix",
                                     {{"blk.0.attn_q.weight.in_sum2", 0, {256}, sums},
                                      {"blk.0.attn_q.weight.counts", 0, {1}, {100}},
                                      {"blk.0.ffn_up_exps.weight.in_sum2", 0, {256, 8}, expertSums},
                                      {"blk.0.ffn_up_exps.weight.counts", 0, {1, 8}, {5, 0, 7, 0, 9, 1.5f, 3, 4}}});
    auto loaded = ImportanceMatrix::load(path.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
    const ImatrixValidation validation = validateImatrix(*loaded);
    const ImportanceEntry* q = loaded->find("blk.0.attn_q.weight");
    const ImportanceEntry* up = loaded->find("blk.0.ffn_up_exps.weight");
    bool nan = false, negative = false, zero = false, fractional = false;
    for (const ImatrixIssue& issue : validation.issues) {
        const std::string text = issue.toString();
        if (issue.tensor == q->name && text.find("NaN or infinite") != std::string::npos) {
            nan = true;
            QCOMPARE(issue.offset, q->sumsOffset + 4 * 37);
            QVERIFY2(text.find("2 value(s)") != std::string::npos, text.c_str());
            QCOMPARE(issue.severity, ImatrixSeverity::Error);
        }
        if (issue.tensor == q->name && text.find("negative") != std::string::npos) {
            negative = true;
            QCOMPARE(issue.offset, q->sumsOffset + 4 * 41);
        }
        if (issue.tensor == up->name && text.find("never routed") != std::string::npos) {
            zero = true;
            QVERIFY2(text.find("2 of 8 experts never routed (expert 1, 3)") != std::string::npos, text.c_str());
            QCOMPARE(issue.severity, ImatrixSeverity::Warning);
        }
        if (issue.tensor == up->name && text.find("not a whole number") != std::string::npos) {
            fractional = true;
            QCOMPARE(issue.offset, up->countsOffset + 4 * 5);
        }
    }
    QVERIFY(nan && negative && zero && fractional);
    QVERIFY(validation.hasErrors());
}

void TestImatrix::malformedLegacyFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    QTest::addColumn<qint64>("offset");
    const QByteArray good = legacyFile({{"blk.0.attn_q.weight", 10, ramp(4)}});
    QByteArray zeroEntries;
    appendI32(zeroEntries, 0);
    QTest::newRow("no entries") << zeroEntries << "entry count 0" << qint64(0);
    QByteArray manyEntries;
    appendI32(manyEntries, 0x7fffffff);
    manyEntries.append(QByteArray(64, '\0'));
    QTest::newRow("entry count beyond the file") << manyEntries << "cannot fit in the 68-byte file" << qint64(0);
    QByteArray negativeName;
    appendI32(negativeName, 1);
    appendI32(negativeName, -5);
    negativeName.append(QByteArray(32, 'x'));
    QTest::newRow("negative name length") << negativeName << "negative name length (-5)" << qint64(4);
    QByteArray hugeName;
    appendI32(hugeName, 1);
    appendI32(hugeName, 0x7ffffff0);
    hugeName.append(QByteArray(32, 'x'));
    QTest::newRow("name past the end") << hugeName << "name (2147483632 bytes) runs past the end" << qint64(8);
    QByteArray hugeValues = legacyFile({{"w", 1, ramp(2)}}, false);
    std::int32_t big = 0x40000000;
    std::memcpy(hugeValues.data() + 4 + 4 + 1 + 4, &big, 4);
    QTest::newRow("nval past the end") << hugeValues << "the 1073741824 values of 'w' runs past the end" << qint64(17);
    QByteArray zeroValues = legacyFile({{"w", 1, {}}});
    QTest::newRow("nval 0") << zeroValues << "'w' has nval 0" << qint64(13);
    QByteArray trailing = good;
    trailing.append("!!");
    QTest::newRow("bytes after the dataset") << trailing << "2 unexpected bytes after the dataset name" << qint64(good.size());
    QByteArray badDataset = legacyFile({{"w", 1, ramp(2)}}, false);
    appendI32(badDataset, 3);
    appendI32(badDataset, -1);
    QTest::newRow("negative dataset length") << badDataset << "negative dataset name length" << qint64(badDataset.size() - 4);
}

void TestImatrix::malformedLegacyFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    QFETCH(qint64, offset);
    QTemporaryDir dir;
    const auto loaded = ImportanceMatrix::load(writeTemp(dir, "bad.dat", bytes).toStdString());
    QVERIFY(!loaded);
    const std::string text = loaded.error().toString();
    QVERIFY2(text.find(message.toStdString()) != std::string::npos, text.c_str());
    QCOMPARE(qint64(loaded.error().offset), offset);
}

void TestImatrix::everyLegacyTruncationFails()
{
    // Cut the real .dat at every length through its first entries and through its trailer:
    // each must fail with an offset inside what is left. The one exception is the cut right
    // before the trailer (older files end there): it loads, with no chunk count or dataset.
    const QByteArray whole = testsupport::readWholeFile(llamaFixture("tiny-llama.imatrix.dat"));
    const qsizetype trailer = 4 + 4 + qsizetype(std::strlen("/usr/share/common-licenses/GPL-3"));
    QVERIFY(whole.size() > 2000);
    QTemporaryDir dir;
    std::vector<qsizetype> cuts;
    for (qsizetype n = 0; n < 1200; ++n)
        cuts.push_back(n);
    for (qsizetype n = whole.size() - 60; n < whole.size(); ++n)
        cuts.push_back(n);
    int failures = 0;
    for (qsizetype n : cuts) {
        const auto loaded = ImportanceMatrix::load(writeTemp(dir, "cut.dat", whole.left(n)).toStdString());
        if (n == whole.size() - trailer) {
            QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
            QCOMPARE(loaded->chunkCount(), 0);
            QVERIFY(loaded->datasets().empty());
            QCOMPARE(loaded->entries().size(), std::size_t(14));
            continue;
        }
        QVERIFY2(!loaded, qPrintable(QString("a %1-byte prefix loaded").arg(n)));
        QVERIFY(!loaded.error().message.empty());
        QVERIFY(loaded.error().offset == Error::kNoOffset || loaded.error().offset <= std::uint64_t(n));
        ++failures;
    }
    QCOMPARE(failures, int(cuts.size()) - 1);
}

void TestImatrix::everyGgufTruncationFails()
{
    // Every cut before the end of the last tensor's data fails (the padding after it is not data).
    const ImportanceMatrix matrix = loadOrFail("tiny-llama.imatrix.gguf");
    std::uint64_t dataEnd = 0;
    for (const ImportanceEntry& e : matrix.entries())
        dataEnd = std::max({dataEnd, e.sumsOffset + 4 * e.sums.size(), e.countsOffset + 4 * e.counts.size()});
    const QByteArray whole = testsupport::readWholeFile(llamaFixture("tiny-llama.imatrix.gguf"));
    QCOMPARE(dataEnd, std::uint64_t(20740));
    QTemporaryDir dir;
    for (qsizetype n = 4; n < qsizetype(dataEnd); n += (n < 3000 ? 1 : 97)) {
        const auto loaded = ImportanceMatrix::load(writeTemp(dir, "cut.gguf", whole.left(n)).toStdString());
        QVERIFY2(!loaded, qPrintable(QString("a %1-byte prefix loaded").arg(n)));
        QVERIFY(loaded.error().offset == Error::kNoOffset || loaded.error().offset <= std::uint64_t(n));
    }
}

void TestImatrix::malformedGgufFiles_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("message");
    QTest::newRow("counts without in_sum2") << 0 << "has no matching in_sum2 tensor";
    QTest::newRow("in_sum2 without counts") << 1 << "has no matching counts tensor";
    QTest::newRow("f16 in_sum2") << 2 << "is f16, expected f32";
    QTest::newRow("counts for the wrong rows") << 3 << "has 3 counts for the 2 rows of its in_sum2";
    QTest::newRow("3-D in_sum2") << 4 << "has 3 dimensions";
    QTest::newRow("no datasets key") << 5 << "missing imatrix metadata key 'imatrix.datasets'";
    QTest::newRow("chunk_count not u32") << 6 << "key 'imatrix.chunk_count' is i32, expected u32";
    QTest::newRow("no tensors") << 7 << "holds no tensors";
}

void TestImatrix::malformedGgufFiles()
{
    QFETCH(int, which);
    QFETCH(QString, message);
    QTemporaryDir dir;
    std::vector<GgufImatrixTensor> tensors{{"w.in_sum2", 0, {4, 2}, ramp(8)}, {"w.counts", 0, {1, 2}, {1, 2}}};
    bool datasets = true, chunkU32 = true;
    switch (which) {
    case 0: tensors.erase(tensors.begin()); break;
    case 1: tensors.pop_back(); break;
    case 2: tensors[0].typeId = 1; break;
    case 3: tensors[1] = {"w.counts", 0, {3}, {1, 2, 3}}; break;
    case 4: tensors = {{"w.in_sum2", 0, {4, 1, 2}, ramp(8)}, {"w.counts", 0, {1}, {1}}}; break;
    case 5: datasets = false; break;
    case 6: chunkU32 = false; break;
    case 7: tensors.clear(); break;
    }
    const QString path = ggufImatrix(dir, "bad.imatrix", tensors, datasets, chunkU32);
    const auto loaded = ImportanceMatrix::load(path.toStdString());
    QVERIFY(!loaded);
    const std::string text = loaded.error().toString();
    QVERIFY2(text.find(message.toStdString()) != std::string::npos, text.c_str());
    QVERIFY2(text.find(path.toStdString()) == 0, text.c_str());
    if (which <= 4)
        QVERIFY(loaded.error().offset != Error::kNoOffset);
}

void TestImatrix::zeroCountExpertGetsWeightOne()
{
    QTemporaryDir dir;
    const QString path = ggufImatrix(dir, "zero.imatrix",
                                     {{"w.in_sum2", 0, {4, 3}, ramp(12)}, {"w.counts", 0, {1, 3}, {2, 0, 4}}});
    auto loaded = ImportanceMatrix::load(path.toStdString());
    QVERIFY(loaded);
    const ImportanceEntry* entry = loaded->find("w");
    QCOMPARE(entry->quantWeights(0), (std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f}));
    QCOMPARE(entry->quantWeights(1), (std::vector<float>{1, 1, 1, 1}));
    QCOMPARE(entry->quantWeights(2), (std::vector<float>{9 / 4.0f, 10 / 4.0f, 11 / 4.0f, 12 / 4.0f}));
    // The statistics leave the unrouted expert out (llama-imatrix skips zero counts).
    const ImatrixStatistics statistics = computeImatrixStatistics(*loaded);
    QCOMPARE(statistics.tensors.size(), std::size_t(1));
    QCOMPARE(statistics.tensors[0].elements, 8);
}

void TestImatrix::routingMapAndRareExperts()
{
    const ExpertRouting routing = computeExpertRouting(loadOrFail("tiny-moe.imatrix.gguf"));
    QCOMPARE(routing.layers.size(), std::size_t(2));
    QCOMPARE(routing.expertCount, std::size_t(8));
    QCOMPARE(routing.layers[1].tokens[6], 66.0);
    QCOMPARE(routing.layers[0].totalTokens, 16384.0);  // 2 experts per token x 8192 tokens
    QVERIFY(!routing.layers[0].projectionsDisagree);
    // Below a tenth of an even share (2048 tokens): 200 and 66 in layer 1; 247 in layer 0 is not.
    QCOMPARE(routing.rare.size(), std::size_t(2));
    QCOMPARE(routing.rare[0].layer, 1u);
    QCOMPARE(routing.rare[0].expert, 1u);
    QCOMPARE(routing.rare[1].expert, 6u);
    QCOMPARE(routing.rare[1].shareOfEven, 66.0 / 2048.0);
    QCOMPARE(computeExpertRouting(loadOrFail("tiny-moe.imatrix.gguf"), 0.125).rare.size(), std::size_t(3));
    QVERIFY(!computeExpertRouting(loadOrFail("tiny-moe.imatrix.dat")).known());
    QVERIFY(!computeExpertRouting(loadOrFail("tiny-llama.imatrix.gguf")).known());
}

void TestImatrix::topColumnsAndPooledImportance()
{
    const std::vector<ImportantColumn> top = topColumns({1.0f, 5.0f, 3.0f, 5.0f, std::nanf("")}, 3);
    QCOMPARE(top.size(), std::size_t(3));
    QCOMPARE(top[0].column, std::size_t(1));  // tie with column 3: the lower first
    QCOMPARE(top[1].column, std::size_t(3));
    QCOMPARE(top[2].column, std::size_t(2));
    QCOMPARE(top[2].shareOfTotal, 3.0 / 14.0);
    QCOMPARE(topColumns({1.0f}, 5).size(), std::size_t(1));

    const ImportanceMatrix moe = loadOrFail("tiny-moe.imatrix.gguf");
    const ImportanceEntry* entry = moe.find("blk.1.ffn_up_exps.weight");
    const std::vector<float> pooled = columnImportance(*entry);
    QCOMPARE(pooled.size(), std::size_t(256));
    for (std::size_t c = 0; c < 256; c += 17) {
        double sum = 0, tokens = 0;
        for (std::size_t e = 0; e < 8; ++e) {
            sum += entry->sums[e * 256 + c];
            tokens += entry->counts[e];
        }
        QCOMPARE(pooled[c], float(sum / tokens));
    }
    QCOMPARE(columnImportance(*entry, 3), entry->quantWeights(3));
    const ImportanceEntry* dense = moe.find("blk.0.attn_q.weight");
    QCOMPARE(columnImportance(*dense), dense->quantWeights(0));
}

void TestImatrix::fuzzSeedsLoadAndSurvive()
{
    // fuzz/corpus/fuzz_imatrix (fuzz/make-imatrix-seeds.py) in the ordinary and asan builds: every
    // seed loads and goes through what the harness does with it.
    const QDir corpus(QStringLiteral(GGUFX_SOURCE_DIR "/fuzz/corpus/fuzz_imatrix"));
    const QStringList seeds = corpus.entryList(QDir::Files);
    QVERIFY(seeds.size() >= 5);
    for (const QString& seed : seeds) {
        auto loaded = ImportanceMatrix::load(corpus.filePath(seed).toStdString());
        // Inputs the fuzzer found (regression-*) are malformed: refused with a message.
        if (seed.startsWith(QLatin1String("regression-"))) {
            QVERIFY2(!loaded, qPrintable(seed));
            QVERIFY(!loaded.error().message.empty());
            continue;
        }
        QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
        const ImatrixValidation validation = validateImatrix(*loaded);
        const ImatrixStatistics statistics = computeImatrixStatistics(*loaded);
        QCOMPARE(statistics.tensors.size() + statistics.skipped.size(), loaded->entries().size());
        QVERIFY(!formatImatrixStatistics(statistics, "seed").empty());
        for (const ImportanceEntry& entry : loaded->entries()) {
            QCOMPARE(columnImportance(entry).size(), entry.columnCount());
            for (std::size_t e = 0; e < entry.expertCount(); ++e)
                QCOMPARE(entry.quantWeights(e).size(), entry.columnCount());
        }
        (void)computeExpertRouting(*loaded);
        (void)validation;
    }
}

QTEST_GUILESS_MAIN(TestImatrix)
#include "tst_imatrix.moc"
