// The overview page (OverviewPage) against the fixture manifests: parameter count (the sum of the
// tensors' element counts), file size, tensor count, format, layers, context and experts from the
// metadata, the bytes-per-type chart and the per-layer stacked chart recomputed from each
// manifest's tensor list.

#include "Fixtures.h"
#include "core/edit/ValueText.h"
#include "core/edit/ModelSaver.h"
#include "core/edit/MetadataEdits.h"
#include "core/base/HumanFormat.h"
#include "Manifest.h"
#include "OpenFixture.h"
#include "core/gguf/Model.h"
#include "core/write/ByteSink.h"
#include "core/write/GgufWriter.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/overview/OverviewPage.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/types/GgmlType.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/overview/MemoryEstimateBox.h"

#include <QComboBox>
#include <QLabel>
#include <QSet>
#include <QSlider>
#include <QSpinBox>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <map>

using namespace testsupport;

namespace {

QString labelText(const QWidget& page, const char* objectName)
{
    const auto* label = page.findChild<QLabel*>(QLatin1String(objectName));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(objectName));
}

QString grouped(std::uint64_t number)
{
    return QString::fromStdString(gguf::formatGrouped(number));
}

// Bytes per axis unit, read from the axis label "size (MiB)" the chart shows.
double unitOf(const QCustomPlot& plot)
{
    const QRegularExpressionMatch match = QRegularExpression(QStringLiteral("\\((bytes|KiB|MiB|GiB|TiB)\\)")).match(plot.yAxis->label());
    const QStringList units{"bytes", "KiB", "MiB", "GiB", "TiB"};
    return match.hasMatch() ? std::pow(1024.0, units.indexOf(match.captured(1))) : 0.0;
}

QList<QCPBars*> barsOf(QCustomPlot& plot)
{
    QList<QCPBars*> bars;
    for (int i = 0; i < plot.plottableCount(); ++i)
        if (auto* series = qobject_cast<QCPBars*>(plot.plottable(i)))
            bars.append(series);
    return bars;
}

std::uint64_t elementCount(const ManifestTensor& tensor)
{
    std::uint64_t count = 1;
    for (std::int64_t n : tensor.ne)
        count *= std::uint64_t(n);
    return count;
}

// The manifest's own metadata value as text ("" when absent).
QString manifestValue(const Manifest& manifest, const QByteArray& key)
{
    const JsonNode* node = manifest.metadata.member(key);
    return node ? QString::fromUtf8(node->text) : QString();
}

}  // namespace

class TestGuiOverview : public QObject {
    Q_OBJECT

private slots:
    void factsMatchManifest_data();
    void factsMatchManifest();
    void typeChartMatchesManifest_data();
    void typeChartMatchesManifest();
    void tinyMoeLayerChart();
    void layerChartMatchesManifest_data();
    void layerChartMatchesManifest();
    void splitModelCountsEveryShard();
    void fileWithoutTensors();
    void manyTypesKeepTheirOwnColours();
    void typeColoursAreTheTypesOwn();
    void estimateTakesAnyContext();
    void estimateStartsAtTheTrainingContext();
    void estimateOffersEveryCacheType();
};

void TestGuiOverview::factsMatchManifest_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("experts");
    QTest::newRow("tiny-llama-Q4_K") << "tiny-llama-Q4_K.gguf" << "dense (no experts)";
    QTest::newRow("tiny-llama-F32") << "tiny-llama-F32.gguf" << "dense (no experts)";
    QTest::newRow("tiny-moe-Q4_K") << "tiny-moe-Q4_K.gguf" << "8 (2 used per token)";
    QTest::newRow("tiny-moe-Q2_K") << "tiny-moe-Q2_K.gguf" << "8 (2 used per token)";
    QTest::newRow("big-endian") << "be.gguf" << "dense (no experts)";
    QTest::newRow("FUGG magic") << "be-fugg.gguf" << "dense (no experts)";
    QTest::newRow("v1") << "v1.gguf" << "dense (no experts)";
    QTest::newRow("align64") << "align64.gguf" << "dense (no experts)";
    QTest::newRow("all-types") << "all-types.gguf" << "dense (no experts)";
}

void TestGuiOverview::factsMatchManifest()
{
    QFETCH(QString, file);
    QFETCH(QString, experts);
    const auto manifest = loadFixtureManifest(file);
    QVERIFY(manifest);
    const auto model = gguf::Model::open(manifest->filePath().toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());

    std::uint64_t parameters = 0;
    std::uint64_t tensorBytes = 0;
    for (const ManifestTensor& tensor : manifest->tensors) {
        parameters += elementCount(tensor);
        tensorBytes += tensor.nbytes;
    }
    const QString parameterText = labelText(page, "parameterCountValue");
    QVERIFY2(parameterText.endsWith(QStringLiteral("(%1)").arg(grouped(parameters))), qPrintable(parameterText));
    QCOMPARE(labelText(page, "bitsPerWeightValue"), QString::number(8.0 * double(tensorBytes) / double(parameters), 'f', 2));
    QVERIFY(labelText(page, "fileSizeValue").endsWith(QStringLiteral("(%1 bytes)").arg(grouped(manifest->fileSize))));
    QCOMPARE(labelText(page, "tensorCountValue"), grouped(manifest->tensorCount));
    QCOMPARE(labelText(page, "metadataCountValue"), grouped(manifest->kvCount));
    QCOMPARE(labelText(page, "shardCountValue"), QStringLiteral("1"));
    const QString format = labelText(page, "formatValue");
    QVERIFY2(format.startsWith(QStringLiteral("GGUF v%1, %2-endian").arg(manifest->version).arg(manifest->byteOrder)), qPrintable(format));
    QCOMPARE(format.contains(QLatin1String("FUGG")), manifest->magic == QLatin1String("FUGG"));
    QCOMPARE(labelText(page, "alignmentValue"), QStringLiteral("%1 bytes").arg(manifest->alignment));

    const QString arch = manifestValue(*manifest, "general.architecture");
    QCOMPARE(labelText(page, "architectureValue"), arch);
    QCOMPARE(labelText(page, "nameValue"), manifestValue(*manifest, "general.name"));
    const QString layers = manifestValue(*manifest, (arch + QStringLiteral(".block_count")).toUtf8());
    QCOMPARE(labelText(page, "layerCountValue"), layers.isEmpty() ? QStringLiteral("not set") : layers);
    const QString context = manifestValue(*manifest, (arch + QStringLiteral(".context_length")).toUtf8());
    QCOMPARE(labelText(page, "contextLengthValue"), context.isEmpty() ? QStringLiteral("not set") : grouped(context.toULongLong()));
    QCOMPARE(labelText(page, "expertCountValue"), experts);
}

void TestGuiOverview::typeChartMatchesManifest_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : {"tiny-llama-Q4_K.gguf", "tiny-moe-Q2_K.gguf", "tiny-moe-F16.gguf", "all-types.gguf", "v2.gguf", "be.gguf"})
        QTest::newRow(file) << QString::fromLatin1(file);
}

void TestGuiOverview::typeChartMatchesManifest()
{
    QFETCH(QString, file);
    const auto manifest = loadFixtureManifest(file);
    QVERIFY(manifest);
    const auto model = gguf::Model::open(manifest->filePath().toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());
    QCustomPlot* plot = page.typePlot();
    QVERIFY(plot);
    QCOMPARE(plot->objectName(), QStringLiteral("typeBytesPlot"));

    std::map<std::uint32_t, std::pair<QString, std::uint64_t>> expected;  // type id -> name, bytes
    for (const ManifestTensor& tensor : manifest->tensors) {
        expected[tensor.typeId].first = tensor.type;
        expected[tensor.typeId].second += tensor.nbytes;
    }
    const double unit = unitOf(*plot);
    QVERIFY2(unit > 0, qPrintable(plot->yAxis->label()));
    const QList<QCPBars*> bars = barsOf(*plot);
    QCOMPARE(bars.size(), qsizetype(expected.size()));
    auto* ticker = dynamic_cast<QCPAxisTickerText*>(plot->xAxis->ticker().data());
    QVERIFY(ticker);
    int position = 0;
    for (const auto& [typeId, nameAndBytes] : expected) {  // in type id order
        QCPBars* series = bars[position];
        QCOMPARE(series->name(), nameAndBytes.first);
        QCOMPARE(series->data()->size(), 1);
        QCOMPARE(series->data()->at(0)->key, double(position));
        QCOMPARE(qRound64(series->data()->at(0)->value * unit), qint64(nameAndBytes.second));
        QCOMPARE(ticker->ticks().value(double(position)), nameAndBytes.first);
        ++position;
    }
}

// tiny-moe (fixtures README): two layers of 4 q4_K attention matrices, 3 q4_K expert tensors
// [256,512,8] and 2 f32 norms plus the f32 router, then token_embd, output (q4_K) and
// output_norm (f32) outside the layers.
void TestGuiOverview::tinyMoeLayerChart()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")).toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());
    QCustomPlot* plot = page.layerPlot();
    QVERIFY(plot);
    auto* ticker = dynamic_cast<QCPAxisTickerText*>(plot->xAxis->ticker().data());
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().values(), QStringList({"0", "1", "other"}));
    const QList<QCPBars*> bars = barsOf(*plot);
    QCOMPARE(bars.size(), 2);
    QCOMPARE(bars[0]->name(), QStringLiteral("f32"));
    QCOMPARE(bars[1]->name(), QStringLiteral("q4_K"));
    QCOMPARE(bars[1]->barBelow(), bars[0]);  // stacked
    QVERIFY(plot->legend->visible());
    QCOMPARE(plot->legend->itemCount(), 2);
    const double unit = unitOf(*plot);
    const QList<qint64> f32{2 * 1024 + 8192, 2 * 1024 + 8192, 1024};
    const QList<qint64> q4k{4 * 36864 + 3 * 589824, 4 * 36864 + 3 * 589824, 2 * 73728};
    for (int x = 0; x < 3; ++x) {
        QCOMPARE(bars[0]->data()->at(x)->key, double(x));
        QCOMPARE(qRound64(bars[0]->data()->at(x)->value * unit), f32[x]);
        QCOMPARE(qRound64(bars[1]->data()->at(x)->value * unit), q4k[x]);
    }
}

void TestGuiOverview::layerChartMatchesManifest_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : {"tiny-moe-Q4_K.gguf", "tiny-moe-F16.gguf", "tiny-llama-Q6_K.gguf", "tiny-llama-IQ2_S.gguf", "all-types.gguf", "dims.gguf"})
        QTest::newRow(file) << QString::fromLatin1(file);
}

// Each stacked series must hold, per x position, the manifest's bytes of that type in that layer.
void TestGuiOverview::layerChartMatchesManifest()
{
    QFETCH(QString, file);
    const auto manifest = loadFixtureManifest(file);
    QVERIFY(manifest);
    const auto model = gguf::Model::open(manifest->filePath().toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());
    QCustomPlot* plot = page.layerPlot();
    QVERIFY(plot);

    std::map<qint64, std::map<QString, std::uint64_t>> expected;  // layer (-1 outside) -> type -> bytes
    const QRegularExpression layerName(QStringLiteral("^blk\\.(\\d+)\\."));
    for (const ManifestTensor& tensor : manifest->tensors) {
        const auto match = layerName.match(tensor.name);
        expected[match.hasMatch() ? match.captured(1).toLongLong() : -1][tensor.type] += tensor.nbytes;
    }
    QStringList labels;
    for (const auto& [layer, types] : expected)
        if (layer >= 0)
            labels << QString::number(layer);
    if (expected.count(-1))
        labels << QStringLiteral("other");

    auto* ticker = dynamic_cast<QCPAxisTickerText*>(plot->xAxis->ticker().data());
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().values(), labels);
    const double unit = unitOf(*plot);
    std::map<QString, std::map<int, qint64>> shown;  // type -> x -> bytes
    for (QCPBars* series : barsOf(*plot))
        for (auto it = series->data()->constBegin(); it != series->data()->constEnd(); ++it)
            shown[series->name()][int(it->key)] = qRound64(it->value * unit);
    std::map<QString, std::map<int, qint64>> wanted;
    for (const auto& [layer, types] : expected) {
        const int x = int(labels.indexOf(layer >= 0 ? QString::number(layer) : QStringLiteral("other")));
        for (const auto& [type, count] : types)
            wanted[type][x] = qint64(count);
    }
    QCOMPARE(shown, wanted);
}

void TestGuiOverview::splitModelCountsEveryShard()
{
    const auto whole = loadFixtureManifest(QStringLiteral("tiny-llama-Q4_K.gguf"));
    const auto first = loadFixtureManifest(QStringLiteral("split-00001-of-00002.gguf"));
    const auto second = loadFixtureManifest(QStringLiteral("split-00002-of-00002.gguf"));
    QVERIFY(whole && first && second);
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("split-00002-of-00002.gguf")).toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());
    std::uint64_t parameters = 0;
    for (const ManifestTensor& tensor : whole->tensors)
        parameters += elementCount(tensor);
    QVERIFY(labelText(page, "parameterCountValue").endsWith(QStringLiteral("(%1)").arg(grouped(parameters))));
    QCOMPARE(labelText(page, "shardCountValue"), QStringLiteral("2"));
    QCOMPARE(labelText(page, "tensorCountValue"), QString::number(whole->tensorCount));
    QVERIFY(labelText(page, "fileSizeValue").endsWith(QStringLiteral("(%1 bytes)").arg(grouped(first->fileSize + second->fileSize))));
    QCOMPARE(labelText(page, "nameValue"), manifestValue(*whole, "general.name"));
}

void TestGuiOverview::fileWithoutTensors()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("no-tensors.gguf")).toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());
    QCOMPARE(labelText(page, "noTensorsLabel"), QStringLiteral("This file has no tensors."));
    QVERIFY(!page.typePlot());
    QVERIFY(!page.layerPlot());
    QVERIFY(!page.findChild<QCustomPlot*>());
    QCOMPARE(labelText(page, "tensorCountValue"), QStringLiteral("0"));
    QCOMPARE(labelText(page, "bitsPerWeightValue"), QStringLiteral("n/a"));
    QCOMPARE(labelText(page, "layerCountValue"), QStringLiteral("1"));
}

// A file with a tensor of each of 20 block types: each type's bars have its one colour (the one
// Compare and Recipe use too), and no two types share one.
void TestGuiOverview::manyTypesKeepTheirOwnColours()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("many-types.gguf"));
    gguf::GgufWriter writer;
    int count = 0;
    for (const gguf::TypeTraits* type = gguf::typeTableBegin(); type != gguf::typeTableEnd() && count < 20; ++type) {
        if (type->kind != gguf::TypeKind::Quantized)
            continue;
        const std::vector<std::int64_t> ne{256, 2};
        const std::size_t bytes = 2 * 256 / type->blockSize * type->blockBytes;
        const std::string name = "blk." + std::to_string(count++) + ".attn_q.weight";
        QVERIFY(writer.addTensor(gguf::TensorSpec{name, type->id, ne}, [bytes](gguf::ByteSink& out) {
            const std::vector<std::uint8_t> zeros(bytes, 0);
            return out.write(zeros.data(), zeros.size());
        }));
    }
    QCOMPARE(count, 20);
    QVERIFY(writer.writeFile(path.toStdString()));
    const auto model = openModelAt(path);
    QVERIFY(model);
    OverviewPage page(model);
    QVERIFY(page.typePlot() && page.layerPlot());
    for (QCustomPlot* plot : {page.typePlot(), page.layerPlot()}) {
        const QList<QCPBars*> bars = barsOf(*plot);
        QCOMPARE(bars.size(), 20);
        QSet<QRgb> colours;
        for (QCPBars* series : bars) {
            const gguf::TypeTraits* type = gguf::findTypeByName(series->name().toStdString());
            QVERIFY(type);
            QCOMPARE(series->brush().color(), quantTypeColour(type->id));
            colours.insert(series->brush().color().rgb());
        }
        QCOMPARE(colours.size(), 20);
    }
}

// Each type in its colour of every other view, however many types: all-types.gguf holds more
// than the dozen colours the page once cycled through.
void TestGuiOverview::typeColoursAreTheTypesOwn()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("all-types.gguf")).toStdString());
    QVERIFY(model);
    OverviewPage page(model.value());
    const QList<QCPBars*> bars = barsOf(*page.typePlot());
    QVERIFY(bars.size() > 12);
    QSet<QRgb> colours;
    for (QCPBars* series : bars) {
        const gguf::TypeTraits* type = gguf::findTypeByName(series->name().toStdString());
        QVERIFY2(type, qPrintable(series->name()));
        QCOMPARE(series->brush().color(), quantTypeColour(type->id));
        colours.insert(series->brush().color().rgb());
    }
    QCOMPARE(colours.size(), bars.size());
    for (QCPBars* series : barsOf(*page.layerPlot()))
        QCOMPARE(series->brush().color(), quantTypeColour(gguf::findTypeByName(series->name().toStdString())->id));
}

// Any context, not only the slider's powers of two; the exact bytes on hover.
void TestGuiOverview::estimateTakesAnyContext()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-llama-F32.gguf")).toStdString());
    QVERIFY(model);
    MemoryEstimateBox box(model.value());
    QCOMPARE(box.contextLength(), std::uint64_t{2048});
    QCOMPARE(box.contextBox()->value(), 2048);
    box.contextBox()->setValue(3000);  // llama.cpp pads it to 3072 cells
    QCOMPARE(box.contextLength(), std::uint64_t{3000});
    QCOMPARE(box.contextSlider()->value(), 11);  // the nearest power the slider has
    QCOMPARE(box.contextBox()->value(), 3000);   // the slider moving along kept what was typed
    gguf::EstimateOptions options;
    options.contextLength = 3000;
    const auto estimate = gguf::estimateMemory(*model.value(), options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvTotal(), 2ull * 2 * 3072 * 256 * 2);
    const QString text = box.resultLabel()->text();
    QVERIFY2(text.contains("KV cache " + QString::fromStdString(gguf::formatBytes(estimate->kvTotal()))), qPrintable(text));
    const QString exact = box.resultLabel()->toolTip();
    QVERIFY2(exact.contains("KV cache: " + grouped(estimate->kvTotal()) + " bytes"), qPrintable(exact));
    QVERIFY2(exact.contains("In all: " + grouped(estimate->total()) + " bytes"), qPrintable(exact));
    QVERIFY2(exact.contains("Weights: " + grouped(estimate->weightsCpu + estimate->weightsGpu) + " bytes"), qPrintable(exact));
    QVERIFY(exact.contains("Context: 3,000 tokens (padded to 3,072)"));
    box.contextSlider()->setValue(9);
    QCOMPARE(box.contextLength(), std::uint64_t{512});
    box.contextBox()->setValue(700);
    QCOMPARE(box.contextSlider()->value(), 10);
    QCOMPARE(box.contextLength(), std::uint64_t{700});
}

// A training context that is not a power of two is the default context itself, as llama.cpp's
// -c 0: it used to be the power of two above it (65,536 for Qwen3-235B's 40,960).
void TestGuiOverview::estimateStartsAtTheTrainingContext()
{
    const auto original = gguf::Model::open(fixturePath(QStringLiteral("tiny-llama-F32.gguf")).toStdString());
    QVERIFY(original);
    auto encoded = gguf::parseValueText("40960", "u32");
    QVERIFY(encoded);
    gguf::MetadataEdits edits;
    edits.set("llama.context_length", *encoded);
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("ctx40960.gguf")).toStdString();
    QVERIFY(gguf::saveModelAs(*original.value(), edits, path));
    const auto model = gguf::Model::open(path);
    QVERIFY(model);
    MemoryEstimateBox box(model.value());
    QCOMPARE(box.contextLength(), std::uint64_t{40960});
    QCOMPARE(box.contextBox()->value(), 40960);
    QCOMPARE(box.contextSlider()->value(), 16);  // the slider's nearest power, at or above it
    QVERIFY2(box.resultLabel()->toolTip().contains("Context: 40,960 tokens"), qPrintable(box.resultLabel()->toolTip()));
}

// Every KV cache type llama.cpp takes, each estimated (a quantized V cache with flash attention).
void TestGuiOverview::estimateOffersEveryCacheType()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-llama-F32.gguf")).toStdString());
    QVERIFY(model);
    MemoryEstimateBox box(model.value());
    QStringList types;
    for (int i = 0; i < box.cacheTypeBox()->count(); ++i)
        types << box.cacheTypeBox()->itemText(i);
    std::sort(types.begin(), types.end());
    QCOMPARE(types, (QStringList{"bf16", "f16", "f32", "iq4_nl", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0"}));
    box.flashAttentionBox()->setCurrentText("on");
    for (int i = 0; i < box.cacheTypeBox()->count(); ++i) {
        box.cacheTypeBox()->setCurrentIndex(i);
        QVERIFY(gguf::isKvCacheType(box.cacheTypeBox()->currentData().toUInt()));
        QVERIFY2(box.resultLabel()->text().startsWith("Weights "), qPrintable(box.cacheTypeBox()->currentText() + ": " + box.resultLabel()->text()));
    }
    QVERIFY(box.gpuLayersBox()->maximum() >= 3);  // -ngl: both layers and the output
}

QTEST_MAIN(TestGuiOverview)
#include "tst_gui_overview.moc"
