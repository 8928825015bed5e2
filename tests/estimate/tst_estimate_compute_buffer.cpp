// The estimate's compute buffer against llama.cpp's own, case by case: the architecture fixtures
// and four real big layouts (DeepSeek-V3, gpt-oss-120b, Qwen3-235B-A22B, Gemma-3-27B) at 4096
// and 32768 tokens, flash attention on and off, small and full sliding-window caches, F32, F16
// and q8_0 caches, odd contexts and ubatches. tests/data/estimate/README.md says how llama.cpp's
// figures were measured. The estimate rebuilds llama.cpp's graph and replays ggml's allocator,
// so it must give the same bytes; the failure message also says how far off it is.

#include "BigLayouts.h"
#include "Fixtures.h"

#include "core/estimate/MemoryEstimate.h"
#include "core/gguf/Model.h"
#include "core/types/GgmlType.h"

#include <QFile>
#include <QMap>
#include <QtTest>

class TestEstimateComputeBuffer : public QObject {
    Q_OBJECT

private slots:
    void matchesLlamaCpp_data();
    void matchesLlamaCpp();
    void cleanupTestCase();

private:
    std::shared_ptr<const gguf::Model> open(const QString& model);

    QMap<QString, std::shared_ptr<const gguf::Model>> m_models;
    QMap<QString, double> m_worstError;  // model -> worst |relative error|
};

void TestEstimateComputeBuffer::matchesLlamaCpp_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<quint64>("context");
    QTest::addColumn<QString>("cacheType");
    QTest::addColumn<bool>("flashAttention");
    QTest::addColumn<bool>("fullSlidingWindow");
    QTest::addColumn<quint32>("ubatch");
    QTest::addColumn<quint64>("bytes");
    QFile table(QStringLiteral(GGUFX_SOURCE_DIR "/tests/data/estimate/compute-buffer-references.tsv"));
    QVERIFY(table.open(QIODevice::ReadOnly | QIODevice::Text));
    int rows = 0;
    for (const QString& line : QString::fromUtf8(table.readAll()).split('\n', Qt::SkipEmptyParts)) {
        if (line.startsWith('#'))
            continue;
        const QStringList f = line.split('\t');
        QVERIFY2(f.size() == 7, qPrintable("not 7 columns: " + line));
        const QString name = QString("%1 %2 %3 fa-%4 swa-full-%5 ub-%6").arg(f[0], f[1], f[2], f[3], f[4], f[5]);
        QTest::newRow(qPrintable(name)) << f[0] << f[1].toULongLong() << f[2] << (f[3] == "on") << (f[4] == "1") << f[5].toUInt()
                                        << f[6].toULongLong();
        ++rows;
    }
    QVERIFY2(rows >= 124, "the reference table lost rows");
}

std::shared_ptr<const gguf::Model> TestEstimateComputeBuffer::open(const QString& model)
{
    if (const auto it = m_models.find(model); it != m_models.end())
        return it.value();
    std::shared_ptr<const gguf::Model> opened;
    if (model.startsWith("layout:")) {
        const auto layout = testsupport::openLayout(testsupport::bigLayout(model.mid(7).toStdString()));
        if (layout)
            opened = layout.value();
    } else {
        const auto file = gguf::Model::open(testsupport::fixturePath(model).toStdString());
        if (file)
            opened = file.value();
    }
    m_models.insert(model, opened);
    return opened;
}

void TestEstimateComputeBuffer::matchesLlamaCpp()
{
    QFETCH(QString, model);
    QFETCH(quint64, context);
    QFETCH(QString, cacheType);
    QFETCH(bool, flashAttention);
    QFETCH(bool, fullSlidingWindow);
    QFETCH(quint32, ubatch);
    QFETCH(quint64, bytes);
    const auto opened = open(model);
    QVERIFY2(opened, qPrintable("cannot open " + model));

    gguf::EstimateOptions options;
    options.contextLength = context;
    options.keyType = options.valueType = gguf::findTypeByName(cacheType.toStdString())->id;
    options.flashAttention = flashAttention ? gguf::FlashAttention::On : gguf::FlashAttention::Off;
    options.fullSlidingWindow = fullSlidingWindow;
    options.ubatch = ubatch;
    options.batch = std::max<std::uint32_t>(2048, ubatch);
    const auto estimate = gguf::estimateMemory(*opened, options);
    QVERIFY2(estimate, estimate ? "" : estimate.error().toString().c_str());
    const double error = (double(estimate->computeBuffer) - double(bytes)) / double(bytes);
    m_worstError[model] = std::max(m_worstError.value(model), std::abs(error));
    QVERIFY2(estimate->computeBuffer == bytes, qPrintable(QString("compute buffer %1 bytes, llama.cpp %2 (%3%)")
                                                              .arg(estimate->computeBuffer)
                                                              .arg(bytes)
                                                              .arg(error * 100, 0, 'f', 3)));
}

void TestEstimateComputeBuffer::cleanupTestCase()
{
    for (auto it = m_worstError.cbegin(); it != m_worstError.cend(); ++it)
        qInfo("worst compute-buffer error %-44s %6.3f%%", qPrintable(it.key()), it.value() * 100);
}

QTEST_GUILESS_MAIN(TestEstimateComputeBuffer)
#include "tst_estimate_compute_buffer.moc"
