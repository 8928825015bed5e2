// The memory estimate against figures computed here by hand from the hyperparameters each test
// file is written with (GQA, sliding windows, per-layer heads, MLA, -ngl), and the KV cache
// figure against what llama.cpp printed when it created a context for the tiny fixtures
// (fixtures/llama.cpp/logits/*.log: "llama_kv_cache: size = ... K (f32) ..., V (f32) ...").

#include "Fixtures.h"

#include "core/estimate/MemoryEstimate.h"
#include "core/gguf/Model.h"
#include "core/types/GgmlType.h"
#include "core/write/GgufWriter.h"

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
    void mlaKeepsKeysOnly();
    void slidingCacheCells_data();
    void slidingCacheCells();
    void valueRowsArePaddedWithoutFlashAttention();
    void sharedLayersKeepNoCache();
    void recurrentStateOfGatedDeltaNet();
    void cacheTypesAndFlashAttention();
    void gpuLayersSplitWeightsAndCache();
    void badInputIsAnError();
    void graphsTooLargeAreNotEstimated();

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
    static const QRegularExpression computeLine(R"(CPU compute buffer size is\s*([0-9.]+) MiB)");
    const auto match = sizeLine.match(text);
    QVERIFY2(match.hasMatch(), "no KV cache line in the log");
    const QString model = QFileInfo(log).fileName().section('.', 0, 0) + ".gguf";
    if (!QFileInfo::exists(testsupport::fixturePath(model)))
        QSKIP(qPrintable("the fixtures hold the log but not the model " + model));
    const auto opened = gguf::Model::open(testsupport::fixturePath(model).toStdString());
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    gguf::EstimateOptions options;
    options.contextLength = match.captured(2).toULongLong();
    // The context as the log states it: flash attention, batch and ubatch.
    static const QRegularExpression contextLine(R"(llama_context: (flash_attn|n_batch|n_ubatch)\s*=\s*(\w+))");
    for (auto it = contextLine.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        if (m.captured(1) == "flash_attn")
            options.flashAttention = m.captured(2) == "disabled" ? gguf::FlashAttention::Off : gguf::FlashAttention::On;
        else
            (m.captured(1) == "n_batch" ? options.batch : options.ubatch) = m.captured(2).toUInt();
    }
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
    // The compute buffer replays llama.cpp's graph allocation: it prints as llama.cpp's %.4f MiB.
    const auto compute = computeLine.match(text);
    QVERIFY(compute.hasMatch());
    QCOMPARE(QString::number(double(estimate->computeBuffer) / 1024.0 / 1024.0, 'f', 4), compute.captured(1));
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

    // Phi-3 files state a window that llama.cpp ignores: every layer in full, exactly.
    const auto phi3 = plus(attention("phi3", 4, 256, 8, 8), [](gguf::GgufWriter& w) {
        w.setValue("phi3.attention.sliding_window", gguf::EncodedValue::u32(2047));
    });
    estimate = gguf::estimateMemory(*writeModel(m_dir.filePath("phi3-swa.gguf"), phi3), options);
    QVERIFY(estimate);
    QVERIFY(estimate->kvExact);
    QCOMPARE(estimate->kvTotal(), std::uint64_t{4} * 2 * 8192 * 256 * 2);

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

void TestEstimate::mlaKeepsKeysOnly()
{
    // DeepSeek-V3 converted with MLA: one KV "head" of 512 + 64 keys per layer; V is a view of K
    // (llama.cpp allocates no V cache).
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
    QCOMPARE(estimate->kvTotal(), std::uint64_t{61} * 16384 * 576 * 2);
    QCOMPARE(estimate->kvLayers[7].valueBytes, std::uint64_t{0});
    QVERIFY(estimate->kvExact);
    // Without the absorbed head sizes llama.cpp runs MLA unabsorbed: K and V as declared.
    const auto unabsorbed = plus(attention("deepseek2", 2, 7168, 128, 128), [](gguf::GgufWriter& w) {
        w.setValue("deepseek2.attention.key_length", gguf::EncodedValue::u32(192));
        w.setValue("deepseek2.attention.value_length", gguf::EncodedValue::u32(128));
        w.setValue("deepseek2.attention.kv_lora_rank", gguf::EncodedValue::u32(512));
    });
    const auto old = gguf::estimateMemory(*writeModel(m_dir.filePath("mla-old.gguf"), unabsorbed), options);
    QVERIFY(old);
    QCOMPARE(old->kvTotal(), std::uint64_t{2} * 16384 * 128 * (192 + 128) * 2);
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

    // 2 KV heads of 48: rows of 96 are whole q8_0 blocks, heads are not. llama.cpp refuses such a
    // K cache with flash attention ("does not divide n_embd_head_k"), and takes it without.
    const auto heads48 = writeModel(m_dir.filePath("heads48.gguf"), attention("llama", 2, 192, 4, 2));
    options.flashAttention = gguf::FlashAttention::On;
    estimate = gguf::estimateMemory(*heads48, options);
    QVERIFY(!estimate);
    QVERIFY2(estimate.error().message.find("layer 0 has heads of 48 keys, not a whole number of blocks of q8_0") != std::string::npos,
             estimate.error().message.c_str());
    options.flashAttention = gguf::FlashAttention::Off;
    QVERIFY(gguf::estimateMemory(*heads48, options));
}

void TestEstimate::slidingCacheCells_data()
{
    // GGML_PAD(min(n_ctx, n_swa + n_ubatch), 256), with n_ubatch = min(ubatch, batch, n_ctx).
    QTest::addColumn<std::uint64_t>("context");
    QTest::addColumn<std::uint32_t>("batch");
    QTest::addColumn<std::uint32_t>("ubatch");
    QTest::addColumn<std::uint64_t>("cells");
    QTest::newRow("window + ubatch padded") << std::uint64_t{8192} << 2048u << 512u << std::uint64_t{1536};
    QTest::newRow("the context is smaller") << std::uint64_t{1024} << 2048u << 512u << std::uint64_t{1024};
    QTest::newRow("batch caps the ubatch") << std::uint64_t{8192} << 256u << 512u << std::uint64_t{1280};
    QTest::newRow("a larger ubatch") << std::uint64_t{32768} << 4096u << 4096u << std::uint64_t{5120};
}

void TestEstimate::slidingCacheCells()
{
    QFETCH(std::uint64_t, context);
    QFETCH(std::uint32_t, batch);
    QFETCH(std::uint32_t, ubatch);
    QFETCH(std::uint64_t, cells);
    const auto model = writeModel(m_dir.filePath("window1000.gguf"), plus(attention("gemma2", 4, 512, 8, 4), [](gguf::GgufWriter& w) {
        w.setValue("gemma2.attention.sliding_window", gguf::EncodedValue::u32(1000));
    }));
    gguf::EstimateOptions options;
    options.contextLength = context;
    options.batch = batch;
    options.ubatch = ubatch;
    auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvLayers[0].cells, cells);
    QCOMPARE(estimate->kvLayers[1].cells, context);
    options.fullSlidingWindow = true;
    estimate = gguf::estimateMemory(*model, options);
    QCOMPARE(estimate->kvLayers[0].cells, context);
}

void TestEstimate::valueRowsArePaddedWithoutFlashAttention()
{
    // Gemma-4-like: per-layer KV heads and head sizes (SWA 2 x 32, full 1 x 128). A transposed V
    // cache (flash attention off) pads every V row to the widest, 128; K rows never.
    const auto gemma4 = [](gguf::GgufWriter& w) {
        w.setValue("general.architecture", gguf::EncodedValue::string("gemma4"));
        w.setValue("gemma4.block_count", gguf::EncodedValue::u32(3));
        w.setValue("gemma4.context_length", gguf::EncodedValue::u32(4096));
        w.setValue("gemma4.embedding_length", gguf::EncodedValue::u32(256));
        w.setValue("gemma4.attention.head_count", gguf::EncodedValue::u32(4));
        const std::vector<gguf::EncodedValue> kv{gguf::EncodedValue::u32(2), gguf::EncodedValue::u32(2), gguf::EncodedValue::u32(1)};
        w.setValue("gemma4.attention.head_count_kv", gguf::EncodedValue::array(gguf::ValueType::U32, kv).value());
        w.setValue("gemma4.attention.key_length", gguf::EncodedValue::u32(128));
        w.setValue("gemma4.attention.value_length", gguf::EncodedValue::u32(128));
        w.setValue("gemma4.attention.key_length_swa", gguf::EncodedValue::u32(32));
        w.setValue("gemma4.attention.value_length_swa", gguf::EncodedValue::u32(32));
        w.setValue("gemma4.attention.sliding_window", gguf::EncodedValue::u32(512));
        const std::vector<gguf::EncodedValue> pattern{gguf::EncodedValue::boolean(true), gguf::EncodedValue::boolean(true),
                                                      gguf::EncodedValue::boolean(false)};
        w.setValue("gemma4.attention.sliding_window_pattern", gguf::EncodedValue::array(gguf::ValueType::Bool, pattern).value());
    };
    const auto model = writeModel(m_dir.filePath("gemma4.gguf"), gemma4);
    gguf::EstimateOptions options;
    options.contextLength = 4096;
    options.keyType = options.valueType = F32;
    options.flashAttention = gguf::FlashAttention::On;
    auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvLayers[0].cells, std::uint64_t{1024});
    QCOMPARE(estimate->kvLayers[0].keyBytes, std::uint64_t{1024} * 64 * 4);
    QCOMPARE(estimate->kvLayers[0].valueBytes, std::uint64_t{1024} * 64 * 4);
    QCOMPARE(estimate->kvLayers[2].valueBytes, std::uint64_t{4096} * 128 * 4);
    options.flashAttention = gguf::FlashAttention::Off;
    estimate = gguf::estimateMemory(*model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvLayers[0].keyBytes, std::uint64_t{1024} * 64 * 4);
    QCOMPARE(estimate->kvLayers[0].valueBytes, std::uint64_t{1024} * 128 * 4);
    QCOMPARE(estimate->kvLayers[2].valueBytes, std::uint64_t{4096} * 128 * 4);
}

void TestEstimate::sharedLayersKeepNoCache()
{
    // The last shared_kv_layers layers read an earlier layer's cache and keep none.
    const auto shared = plus(attention("gemma4", 6, 256, 4, 1), [](gguf::GgufWriter& w) {
        w.setValue("gemma4.attention.key_length", gguf::EncodedValue::u32(64));
        w.setValue("gemma4.attention.value_length", gguf::EncodedValue::u32(64));
        w.setValue("gemma4.attention.shared_kv_layers", gguf::EncodedValue::u32(4));
    });
    gguf::EstimateOptions options;
    options.contextLength = 1024;
    const auto estimate = gguf::estimateMemory(*writeModel(m_dir.filePath("shared.gguf"), shared), options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvLayers.size(), std::size_t{2});
    QCOMPARE(estimate->kvLayers[1].layer, 1u);
    QCOMPARE(estimate->kvTotal(), std::uint64_t{2} * 1024 * 64 * 2 * 2);
}

void TestEstimate::recurrentStateOfGatedDeltaNet()
{
    // Qwen3.5-like, 8 layers, full attention every 4th: 6 Gated DeltaNet layers. Each keeps
    // (d_conv - 1) * (d_inner + 2 * n_group * d_state) conv values and d_state * d_inner ssm
    // values in f32, for one sequence, whatever the context.
    const auto qwen35 = plus(attention("qwen35", 8, 1024, 8, 2), [](gguf::GgufWriter& w) {
        w.setValue("qwen35.attention.key_length", gguf::EncodedValue::u32(256));
        w.setValue("qwen35.attention.value_length", gguf::EncodedValue::u32(256));
        w.setValue("qwen35.ssm.conv_kernel", gguf::EncodedValue::u32(4));
        w.setValue("qwen35.ssm.inner_size", gguf::EncodedValue::u32(2048));
        w.setValue("qwen35.ssm.state_size", gguf::EncodedValue::u32(128));
        w.setValue("qwen35.ssm.group_count", gguf::EncodedValue::u32(16));
        w.setValue("qwen35.ssm.time_step_rank", gguf::EncodedValue::u32(16));
    });
    const auto model = writeModel(m_dir.filePath("qwen35.gguf"), qwen35);
    for (const std::uint64_t context : {std::uint64_t{4096}, std::uint64_t{65536}}) {
        gguf::EstimateOptions options;
        options.contextLength = context;
        const auto estimate = gguf::estimateMemory(*model, options);
        QVERIFY(estimate);
        QVERIFY(estimate->kvExact);
        QCOMPARE(estimate->kvLayers.size(), std::size_t{2});
        QCOMPARE(estimate->kvLayers[0].layer, 3u);
        QCOMPARE(estimate->kvLayers[1].layer, 7u);
        QCOMPARE(estimate->kvTotal(), 2 * context * 2 * 256 * 2 * 2);
        QCOMPARE(estimate->recurrentTotal(), std::uint64_t{6} * 4 * (3 * (2048 + 2 * 16 * 128) + 128 * 2048));
    }
}

void TestEstimate::cacheTypesAndFlashAttention()
{
    const auto model = writeModel(m_dir.filePath("types.gguf"), attention("llama", 2, 256, 8, 8));
    gguf::EstimateOptions options;
    options.contextLength = 512;
    options.keyType = Q8_0;
    options.valueType = Q8_0;
    options.flashAttention = gguf::FlashAttention::Off;
    auto estimate = gguf::estimateMemory(*model, options);
    QVERIFY(!estimate);
    QVERIFY2(estimate.error().message.find("needs flash attention") != std::string::npos, estimate.error().message.c_str());
    options.valueType = F16;  // a quantized K alone works without flash attention
    QVERIFY(gguf::estimateMemory(*model, options));
    options.keyType = 12;  // q4_K: no cache type of llama.cpp's
    estimate = gguf::estimateMemory(*model, options);
    QVERIFY(!estimate);
    QVERIFY2(estimate.error().message.find("q4_K") != std::string::npos, estimate.error().message.c_str());
    // Flash attention halves the masks and drops the f32 scores: a smaller compute buffer.
    options.keyType = F16;
    options.flashAttention = gguf::FlashAttention::Off;
    const auto off = gguf::estimateMemory(*model, options);
    options.flashAttention = gguf::FlashAttention::On;
    const auto on = gguf::estimateMemory(*model, options);
    QVERIFY(off && on);
    QVERIFY(!off->flashAttention && on->flashAttention);
    QVERIFY(on->computeBuffer < off->computeBuffer);
}

// A header may declare a graph no machine runs: 100,000 layers, or 2^32 cells. The compute
// buffer is then left out with a note, after building at most ComputeGraph::kMaxTensors tensors
// (and no product of the graph's sizes may overflow on the way).
void TestEstimate::graphsTooLargeAreNotEstimated()
{
    // 100,000 layers: past llama.cpp's 512 (LLAMA_MAX_LAYERS), refused by name as llama.cpp
    // refuses the file, before any graph is built.
    const auto layers = writeModel(m_dir.filePath("deep.gguf"), attention("llama", 100000, 64, 4, 4));
    QVERIFY(layers);
    auto estimate = gguf::estimateMemory(*layers, {});
    QVERIFY(!estimate);
    QVERIFY2(estimate.error().message.find("llama.block_count") != std::string::npos, estimate.error().message.c_str());
    const auto notEstimated = [](const gguf::MemoryEstimate& e) {
        return std::any_of(e.notes.begin(), e.notes.end(), [](const std::string& n) { return n.find("not estimated") != std::string::npos; });
    };

    const auto wide = writeModel(m_dir.filePath("wide.gguf"), attention("llama", 2, 64, 4, 4));
    gguf::EstimateOptions options;
    options.contextLength = std::uint64_t{1} << 32;
    estimate = gguf::estimateMemory(*wide, options);
    QVERIFY2(estimate, estimate ? "" : estimate.error().message.c_str());
    QCOMPARE(estimate->computeBuffer, std::uint64_t{0});
    QVERIFY(notEstimated(*estimate));
    options.contextLength = std::uint64_t{1} << 20;  // large, yet modelled
    estimate = gguf::estimateMemory(*wide, options);
    QVERIFY(estimate && estimate->computeBuffer > (std::uint64_t{1} << 20) * 512 * 2);
}

QTEST_GUILESS_MAIN(TestEstimate)
#include "tst_estimate.moc"
