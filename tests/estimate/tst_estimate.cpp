// The memory estimate against figures computed here by hand from the hyperparameters each test
// file is written with (GQA, sliding windows, per-layer heads, MLA, -ngl), and the KV cache
// figure against what llama.cpp printed when it created a context for the tiny fixtures
// (fixtures/llama.cpp/logits/*.log: "llama_kv_cache: size = ... K (f32) ..., V (f32) ...").

#include "Fixtures.h"

#include "estimate/MemoryEstimate.h"
#include "gguf/Model.h"
#include "types/GgmlType.h"
#include "write/GgufWriter.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {
enum : std::uint32_t { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8 };

using Setter = std::function<void(gguf::GgufWriter&)>;

std::shared_ptr<const gguf::Model> writeModel(const QString& path, const Setter& metadata,
                                              const std::vector<std::pair<std::string, std::int64_t>>& f32Tensors = {})
{
    gguf::GgufWriter writer;
    metadata(writer);
    for (const auto& [name, elements] : f32Tensors) {
        const std::uint64_t bytes = std::uint64_t(elements) * 4;
        writer.addTensor({name, F32, {elements}}, [bytes](gguf::ByteSink& out) -> gguf::Status {
            const std::vector<char> zeros(bytes, 0);
            return out.write(zeros.data(), zeros.size());
        });
    }
    if (!writer.writeFile(path.toStdString()))
        return nullptr;
    auto model = gguf::Model::open(path.toStdString());
    return model ? model.value() : nullptr;
}

Setter attention(const std::string& arch, std::uint32_t layers, std::uint32_t embedding, std::uint32_t heads, std::uint32_t kvHeads)
{
    return [=](gguf::GgufWriter& w) {
        w.setValue("general.architecture", gguf::EncodedValue::string(arch));
        w.setValue(arch + ".block_count", gguf::EncodedValue::u32(layers));
        w.setValue(arch + ".context_length", gguf::EncodedValue::u32(8192));
        w.setValue(arch + ".embedding_length", gguf::EncodedValue::u32(embedding));
        w.setValue(arch + ".attention.head_count", gguf::EncodedValue::u32(heads));
        w.setValue(arch + ".attention.head_count_kv", gguf::EncodedValue::u32(kvHeads));
    };
}

Setter plus(Setter first, Setter second)
{
    return [=](gguf::GgufWriter& w) {
        first(w);
        second(w);
    };
}
}  // namespace

class TestEstimate : public QObject {
    Q_OBJECT

private slots:
    void kvCacheMatchesLlamaCppLogs_data();
    void kvCacheMatchesLlamaCppLogs();
    void groupedQueryHeads();
    void quantizedCacheRows();
    void contextIsPaddedTo256();
    void slidingWindowLayers();
    void perLayerHeadsSkipLayersWithoutAttention();
    void mlaCacheFollowsDeclaredLengths();
    void gpuLayersSplitWeightsAndCache();
    void badInputIsAnError();

private:
    QTemporaryDir m_dir;
};

void TestEstimate::kvCacheMatchesLlamaCppLogs_data()
{
    QTest::addColumn<QString>("log");
    const QString dir = testsupport::fixturePath("llama.cpp/logits");
    for (const QString& name : QDir(dir).entryList({"*.log"}, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(name)) << QDir(dir).filePath(name);
    QVERIFY(!QDir(dir).entryList({"*.log"}).isEmpty());
}

void TestEstimate::kvCacheMatchesLlamaCppLogs()
{
    QFETCH(QString, log);
    QFile file(log);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    // llama_kv_cache: size =    2.00 MiB (   512 cells,   2 layers,  1/1 seqs), K (f32):    1.00 MiB, V (f32):    1.00 MiB
    static const QRegularExpression sizeLine(R"(llama_kv_cache: size =\s*([0-9.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers.*K \((\w+)\):\s*([0-9.]+) MiB, V \((\w+)\):\s*([0-9.]+) MiB)");
    static const QRegularExpression computeLine(R"(CPU compute buffer size =\s*([0-9.]+) MiB)");
    const auto match = sizeLine.match(text);
    QVERIFY2(match.hasMatch(), "no KV cache line in the log");
    const QString model = QFileInfo(log).fileName().section('.', 0, 0) + ".gguf";
    if (!QFileInfo::exists(testsupport::fixturePath(model)))
        QSKIP(qPrintable("the fixtures hold the log but not the model " + model));
    const auto opened = gguf::Model::open(testsupport::fixturePath(model).toStdString());
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    gguf::EstimateOptions options;
    options.contextLength = match.captured(2).toULongLong();
    options.keyType = gguf::findTypeByName(match.captured(4).toStdString())->id;
    options.valueType = gguf::findTypeByName(match.captured(6).toStdString())->id;
    const auto estimate = gguf::estimateMemory(*opened.value(), options);
    QVERIFY2(estimate, estimate ? "" : estimate.error().toString().c_str());
    QCOMPARE(estimate->kvLayers.size(), std::size_t(match.captured(3).toUInt()));
    QVERIFY(estimate->kvExact);
    // llama.cpp prints MiB with two decimals: the estimate must round to the same figures.
    std::uint64_t keys = 0, values = 0;
    for (const auto& layer : estimate->kvLayers) {
        keys += layer.keyBytes;
        values += layer.valueBytes;
    }
    QCOMPARE(QString::number(double(keys) / (1 << 20), 'f', 2), match.captured(5));
    QCOMPARE(QString::number(double(values) / (1 << 20), 'f', 2), match.captured(7));
    QCOMPARE(QString::number(double(estimate->kvTotal()) / (1 << 20), 'f', 2), match.captured(1));
    // The compute buffer is approximate: within 2% of llama.cpp's figure for these models.
    const auto compute = computeLine.match(text);
    QVERIFY(compute.hasMatch());
    const double reported = compute.captured(1).toDouble() * (1 << 20);
    QVERIFY2(std::abs(double(estimate->computeBuffer) - reported) < 0.02 * reported,
             qPrintable(QString("%1 vs %2").arg(estimate->computeBuffer).arg(reported)));
}

void TestEstimate::groupedQueryHeads()
{
    // Llama-3-8B: 32 layers, 32 query heads, 8 KV heads of 128: 32 x 2 x 8192 x 1024 x 2 bytes = 1 GiB at 8192.
    const auto model = writeModel(m_dir.filePath("gqa.gguf"), attention("llama", 32, 4096, 32, 8));
    QVERIFY(model);
    const auto estimate = gguf::estimateMemory(*model, {});
    QVERIFY(estimate);
    QCOMPARE(estimate->contextLength, std::uint64_t{8192});
    QCOMPARE(estimate->kvTotal(), std::uint64_t{32} * 2 * 8192 * 1024 * 2);
    QCOMPARE(estimate->kvLayers.size(), std::size_t{32});
    QCOMPARE(estimate->kvLayers[5].keyBytes, std::uint64_t{8192} * 1024 * 2);
}

void TestEstimate::quantizedCacheRows()
{
    const auto model = writeModel(m_dir.filePath("q8.gguf"), attention("llama", 32, 4096, 32, 8));
    gguf::EstimateOptions options;
    options.keyType = Q8_0;
    options.valueType = Q4_0;
    options.contextLength = 32768;
    const auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    // A row of 1,024 values: 32 blocks of 34 bytes (q8_0) and of 18 bytes (q4_0).
    QCOMPARE(estimate->kvLayers[0].keyBytes, std::uint64_t{32768} * 32 * 34);
    QCOMPARE(estimate->kvLayers[0].valueBytes, std::uint64_t{32768} * 32 * 18);
    QCOMPARE(estimate->kvTotal(), std::uint64_t{32} * 32768 * 32 * (34 + 18));
}

void TestEstimate::contextIsPaddedTo256()
{
    const auto model = writeModel(m_dir.filePath("pad.gguf"), attention("llama", 2, 256, 8, 8));
    gguf::EstimateOptions options;
    options.contextLength = 1000;
    const auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->contextLength, std::uint64_t{1024});
    QCOMPARE(estimate->kvTotal(), std::uint64_t{2} * 2 * 1024 * 256 * 2);
}

void TestEstimate::slidingWindowLayers()
{
    // Gemma-2-9B: 42 layers, every even one sliding over 4,096 tokens; 8 KV heads of 256.
    const auto gemma2 = plus(attention("gemma2", 42, 3584, 16, 8), [](gguf::GgufWriter& w) {
        w.setValue("gemma2.attention.key_length", gguf::EncodedValue::u32(256));
        w.setValue("gemma2.attention.value_length", gguf::EncodedValue::u32(256));
        w.setValue("gemma2.attention.sliding_window", gguf::EncodedValue::u32(4096));
    });
    const auto model = writeModel(m_dir.filePath("gemma2.gguf"), gemma2);
    gguf::EstimateOptions options;
    options.contextLength = 32768;
    auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    const std::uint64_t row = 8 * 256 * 2;  // f16
    const std::uint64_t windowCells = 4096 + 512;  // window + ubatch, already a multiple of 256
    QCOMPARE(estimate->kvTotal(), 21 * 2 * row * windowCells + 21 * 2 * row * 32768);
    QVERIFY(estimate->kvLayers[0].slidingWindow && !estimate->kvLayers[1].slidingWindow);
    QCOMPARE(estimate->kvLayers[0].cells, windowCells);
    options.fullSlidingWindow = true;
    estimate = gguf::estimateMemory(*model, options);
    QCOMPARE(estimate->kvTotal(), 42 * 2 * row * 32768);

    // Gemma-3: five sliding layers in six.
    const auto gemma3 = plus(attention("gemma3", 12, 1024, 4, 1), [](gguf::GgufWriter& w) {
        w.setValue("gemma3.attention.key_length", gguf::EncodedValue::u32(256));
        w.setValue("gemma3.attention.value_length", gguf::EncodedValue::u32(256));
        w.setValue("gemma3.attention.sliding_window", gguf::EncodedValue::u32(512));
    });
    const auto model3 = writeModel(m_dir.filePath("gemma3.gguf"), gemma3);
    options.fullSlidingWindow = false;
    options.contextLength = 8192;
    estimate = gguf::estimateMemory(*model3, options);
    QVERIFY(estimate);
    const std::uint64_t row3 = 256 * 2;
    QCOMPARE(estimate->kvTotal(), 10 * 2 * row3 * 1024 + 2 * 2 * row3 * 8192);
    QVERIFY(!estimate->kvLayers[5].slidingWindow && !estimate->kvLayers[11].slidingWindow && estimate->kvLayers[4].slidingWindow);

    // A window with no known pattern: every layer in full, and said to be approximate.
    const auto unknown = plus(attention("somearch", 4, 256, 8, 8), [](gguf::GgufWriter& w) {
        w.setValue("somearch.attention.sliding_window", gguf::EncodedValue::u32(128));
    });
    estimate = gguf::estimateMemory(*writeModel(m_dir.filePath("unknown-swa.gguf"), unknown), options);
    QVERIFY(estimate);
    QVERIFY(!estimate->kvExact);
    QCOMPARE(estimate->kvTotal(), std::uint64_t{4} * 2 * 8192 * 256 * 2);
}

void TestEstimate::perLayerHeadsSkipLayersWithoutAttention()
{
    // A hybrid model: KV heads per layer, 0 where the layer is recurrent.
    const auto hybrid = [](gguf::GgufWriter& w) {
        w.setValue("general.architecture", gguf::EncodedValue::string("hybrid"));
        w.setValue("hybrid.block_count", gguf::EncodedValue::u32(4));
        w.setValue("hybrid.context_length", gguf::EncodedValue::u32(4096));
        w.setValue("hybrid.embedding_length", gguf::EncodedValue::u32(512));
        w.setValue("hybrid.attention.head_count", gguf::EncodedValue::u32(8));
        std::vector<gguf::EncodedValue> kv{gguf::EncodedValue::u32(0), gguf::EncodedValue::u32(2), gguf::EncodedValue::u32(0),
                                           gguf::EncodedValue::u32(4)};
        w.setValue("hybrid.attention.head_count_kv", gguf::EncodedValue::array(gguf::ValueType::U32, kv).value());
    };
    const auto estimate = gguf::estimateMemory(*writeModel(m_dir.filePath("hybrid.gguf"), hybrid), {});
    QVERIFY(estimate);
    QCOMPARE(estimate->kvLayers.size(), std::size_t{2});
    QCOMPARE(estimate->kvLayers[0].layer, 1u);
    QCOMPARE(estimate->kvTotal(), std::uint64_t{4096} * 2 * 2 * 64 * (2 + 4));
}

void TestEstimate::mlaCacheFollowsDeclaredLengths()
{
    // DeepSeek-V3 converted with MLA: one KV "head" of 512 + 64 keys and 512 values per layer.
    const auto mla = plus(attention("deepseek2", 61, 7168, 128, 1), [](gguf::GgufWriter& w) {
        w.setValue("deepseek2.attention.key_length", gguf::EncodedValue::u32(576));
        w.setValue("deepseek2.attention.value_length", gguf::EncodedValue::u32(512));
        w.setValue("deepseek2.attention.key_length_mla", gguf::EncodedValue::u32(192));
        w.setValue("deepseek2.attention.value_length_mla", gguf::EncodedValue::u32(128));
        w.setValue("deepseek2.attention.kv_lora_rank", gguf::EncodedValue::u32(512));
    });
    gguf::EstimateOptions options;
    options.contextLength = 16384;
    const auto estimate = gguf::estimateMemory(*writeModel(m_dir.filePath("mla.gguf"), mla), options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvTotal(), std::uint64_t{61} * 16384 * (576 + 512) * 2);
    QVERIFY(std::any_of(estimate->notes.begin(), estimate->notes.end(), [](const std::string& n) { return n.find("MLA") == 0; }));
}

void TestEstimate::gpuLayersSplitWeightsAndCache()
{
    const std::vector<std::pair<std::string, std::int64_t>> tensors{
        {"token_embd.weight", 1000}, {"blk.0.attn_q.weight", 100}, {"blk.1.attn_q.weight", 200}, {"output.weight", 3000}};
    const auto model = writeModel(m_dir.filePath("ngl.gguf"), attention("llama", 2, 256, 8, 8), tensors);
    QVERIFY(model);
    gguf::EstimateOptions options;
    options.contextLength = 256;
    options.gpuLayers = 1;  // the last layer
    auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->weightsGpu, std::uint64_t{200} * 4);
    QCOMPARE(estimate->weightsCpu, std::uint64_t{1000 + 100 + 3000} * 4);
    QCOMPARE(estimate->kvGpu, std::uint64_t{256} * 256 * 2 * 2);
    QCOMPARE(estimate->kvCpu, estimate->kvGpu);
    options.gpuLayers = 3;  // more than the layers: the output layer goes too
    estimate = gguf::estimateMemory(*model, options);
    QCOMPARE(estimate->weightsGpu, std::uint64_t{100 + 200 + 3000} * 4);
    QCOMPARE(estimate->weightsCpu, std::uint64_t{1000} * 4);
    QCOMPARE(estimate->kvCpu, std::uint64_t{0});
    options.gpuLayers = 0;
    estimate = gguf::estimateMemory(*model, options);
    QCOMPARE(estimate->weightsGpu, std::uint64_t{0});
    QCOMPARE(estimate->gpuTotal(), std::uint64_t{0});
}

void TestEstimate::badInputIsAnError()
{
    const auto noArch = writeModel(m_dir.filePath("noarch.gguf"), [](gguf::GgufWriter& w) {
        w.setValue("general.name", gguf::EncodedValue::string("x"));
    });
    auto estimate = gguf::estimateMemory(*noArch, {});
    QVERIFY(!estimate);
    QVERIFY(estimate.error().message.find("general.architecture") != std::string::npos);
    // 8 KV heads of 22 values: 176 per row, not whole q8_0 blocks of 32.
    const auto odd = writeModel(m_dir.filePath("odd.gguf"), attention("llama", 2, 176, 8, 8));
    gguf::EstimateOptions options;
    options.keyType = Q8_0;
    estimate = gguf::estimateMemory(*odd, options);
    QVERIFY(!estimate);
    QVERIFY2(estimate.error().message.find("whole number of blocks") != std::string::npos, estimate.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestEstimate)
#include "tst_estimate.moc"
