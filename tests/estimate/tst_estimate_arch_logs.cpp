// The memory estimate against llama.cpp's own context-creation logs for the architectures of
// fixtures/llama.cpp/arch that the estimate models (those of the forward pass: one row per
// mem.*.log of their folders: contexts 4096 and 32768, F32/F16 KV, flash attention off/auto, full
// or small SWA cache). Every figure is parsed from the log at test time: the command line gives
// the options, "llama_kv_cache: size = ..." each cache (cells, layers, K and V MiB),
// "llama_memory_recurrent: size = ..." the recurrent state, "~llama_context: ... compute buffer
// size is" the compute buffer (4 decimals). The KV cache and the recurrent state must print the
// same as llama.cpp's %.2f of float MiB, the compute buffer the same as its %.4f.

#include "Fixtures.h"

#include "core/estimate/ArchitectureGraphs.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/estimate/EstimateShape.h"
#include "core/gguf/Model.h"
#include "core/types/GgmlType.h"

#include <QDir>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QtTest>

#include <cstdio>

namespace {
// llama.cpp prints MiB as %7.2f of a float.
QString mib(std::uint64_t bytes)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f", static_cast<double>(static_cast<float>(bytes) / (1024.0f * 1024.0f)));
    return QString::fromLatin1(text);
}

QString option(const QString& command, const QString& flag)
{
    const QRegularExpression pattern(QRegularExpression::escape(flag) + R"(\s+(\S+))");
    return pattern.match(command).captured(1);
}

struct LoggedCache {
    std::uint64_t cells = 0;
    std::size_t layers = 0;
    QString keyType, keyMiB, valueType, valueMiB;
};
}  // namespace

class TestEstimateArchLogs : public QObject {
    Q_OBJECT

private slots:
    void matchesLlamaCpp_data();
    void matchesLlamaCpp();
    void cleanupTestCase();

private:
    QMap<QString, double> m_worstComputeError;  // "arch, flash attention on/off" -> worst |relative error|
};

void TestEstimateArchLogs::matchesLlamaCpp_data()
{
    QTest::addColumn<QString>("log");
    const QDir arch(testsupport::fixturePath("llama.cpp/arch"));
    int rows = 0;
    for (const QString& folder : arch.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QDir dir(arch.filePath(folder));
        // Folders of architectures the estimate does not model (no graph of their own) are left out.
        const auto model = gguf::Model::open(dir.filePath(folder + "-F32.gguf").toStdString());
        if (!model || !gguf::graphBuilderFor(model.value()->metadataString("general.architecture")))
            continue;
        for (const QString& name : dir.entryList({"mem.*.log"}, QDir::Files, QDir::Name)) {
            QTest::newRow(qPrintable(folder + "/" + name)) << dir.filePath(name);
            ++rows;
        }
    }
    QVERIFY2(rows >= 58, "the arch fixtures hold fewer memory logs of the modelled architectures than before");
}

void TestEstimateArchLogs::matchesLlamaCpp()
{
    QFETCH(QString, log);
    QFile file(log);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    // "+ ctx_mem public/<f>/<model>.gguf 4096 --kv f32 --fa off --n-batch 512 --n-ubatch 512 --swa-full 1 --threads 1"
    const QString command = text.section('\n', 0, 0);
    const QRegularExpression modelAndContext(R"(ctx_mem \S*/(\S+\.gguf) (\d+))");
    const auto head = modelAndContext.match(command);
    QVERIFY2(head.hasMatch(), qPrintable(command));
    const QString modelPath = QFileInfo(log).dir().filePath(head.captured(1));

    gguf::EstimateOptions options;
    options.contextLength = head.captured(2).toULongLong();
    const gguf::TypeTraits* kvType = gguf::findTypeByName(option(command, "--kv").toStdString());
    QVERIFY(kvType);
    options.keyType = options.valueType = kvType->id;
    const QString fa = option(command, "--fa");
    options.flashAttention = fa == "off" ? gguf::FlashAttention::Off : fa == "on" ? gguf::FlashAttention::On : gguf::FlashAttention::Auto;
    options.batch = option(command, "--n-batch").toUInt();
    options.ubatch = option(command, "--n-ubatch").toUInt();
    options.fullSlidingWindow = option(command, "--swa-full") == "1";
    QVERIFY(options.batch && options.ubatch);

    const auto model = gguf::Model::open(modelPath.toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    const auto shape = gguf::readEstimateShape(*model.value());
    QVERIFY(shape);
    const auto estimate = gguf::estimateMemory(*model.value(), options);
    QVERIFY2(estimate, estimate ? "" : estimate.error().toString().c_str());
    QVERIFY2(estimate->kvExact, "the estimate calls itself approximate for an architecture llama.cpp logged");

    // The caches in the order llama.cpp creates them: the full-attention one, then the SWA one.
    static const QRegularExpression sizeLine(
        R"(llama_kv_cache: size =\s*[0-9.]+ MiB \(\s*(\d+) cells,\s*(\d+) layers.*K \((\w+)\):\s*([0-9.]+) MiB, V \((\w+)\):\s*([0-9.]+) MiB)");
    std::vector<LoggedCache> logged;
    for (auto it = sizeLine.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        logged.push_back({m.captured(1).toULongLong(), m.captured(2).toULongLong(), m.captured(3), m.captured(4), m.captured(5), m.captured(6)});
    }
    QVERIFY2(!logged.empty(), "no KV cache line in the log");
    const bool twoCaches = text.contains("llama_kv_cache_iswa: creating");
    QCOMPARE(logged.size(), std::size_t(twoCaches ? 2 : 1));
    for (std::size_t c = 0; c < logged.size(); ++c) {
        const bool sliding = c == 1;
        std::uint64_t keys = 0, values = 0;
        std::size_t layers = 0;
        for (const gguf::LayerKvEstimate& layer : estimate->kvLayers) {
            if (twoCaches && shape->layers[layer.layer].slidingWindow != sliding)
                continue;
            ++layers;
            keys += layer.keyBytes;
            values += layer.valueBytes;
            QCOMPARE(layer.cells, logged[c].cells);
        }
        QCOMPARE(layers, logged[c].layers);
        QCOMPARE(QString::fromStdString(gguf::typeName(options.keyType)), logged[c].keyType);
        QCOMPARE(mib(keys), logged[c].keyMiB);
        QCOMPARE(mib(values), logged[c].valueMiB);
    }

    // llama_memory_recurrent: size = 0.04 MiB (1 cells, 4 layers, 1 seqs 0 rs_seq), R (f32): 0.01 MiB, S (f32): 0.03 MiB, ...
    static const QRegularExpression stateLine(R"(llama_memory_recurrent: size =\s*([0-9.]+) MiB .*R \(f32\):\s*([0-9.]+) MiB, S \(f32\):\s*([0-9.]+) MiB)");
    const auto state = stateLine.match(text);
    if (state.hasMatch()) {
        QCOMPARE(mib(estimate->recurrentTotal()), state.captured(1));
        const std::uint64_t layers = std::count_if(shape->layers.begin(), shape->layers.end(), [](const auto& l) { return l.recurrent; });
        QCOMPARE(mib(layers * shape->convState * 4), state.captured(2));
        QCOMPARE(mib(layers * shape->ssmState * 4), state.captured(3));
    } else {
        QCOMPARE(estimate->recurrentTotal(), std::uint64_t{0});
    }

    static const QRegularExpression computeLine(R"(~llama_context:\s+CPU compute buffer size is\s+([0-9.]+) MiB)");
    const auto compute = computeLine.match(text);
    QVERIFY2(compute.hasMatch(), "no compute buffer line in the log");
    const double reported = compute.captured(1).toDouble() * 1024 * 1024;
    const double error = (double(estimate->computeBuffer) - reported) / reported;
    const QString key = QFileInfo(modelPath).dir().dirName() + (estimate->flashAttention ? ", flash attention on" : ", flash attention off");
    m_worstComputeError[key] = std::max(m_worstComputeError.value(key), std::abs(error));
    QCOMPARE(QString::number(double(estimate->computeBuffer) / 1024.0 / 1024.0, 'f', 4), compute.captured(1));
}

void TestEstimateArchLogs::cleanupTestCase()
{
    // The figures for the record: the worst compute-buffer error per architecture and mode.
    for (auto it = m_worstComputeError.cbegin(); it != m_worstComputeError.cend(); ++it)
        qInfo("worst compute-buffer error %-36s %5.2f%%", qPrintable(it.key()), it.value() * 100);
}

QTEST_GUILESS_MAIN(TestEstimateArchLogs)
#include "tst_estimate_arch_logs.moc"
