// The memory estimate on real big-model layouts (tests/support/BigLayouts.h): every tensor of
// the layout with its real shape and type, its data zeros never stored, so a 671B model costs a
// header. DeepSeek-V3 (MLA, converted with the absorbed head sizes): llama.cpp allocates K only,
// 61 layers x (512 + 64) x cells x 2 bytes at F16, 274.5 MiB at n_ctx 4096.

#include "BigLayouts.h"

#include "core/estimate/MemoryEstimate.h"
#include "core/gguf/Model.h"
#include "core/types/GgmlType.h"

#include <QtTest>

#include <memory>

class TestEstimateBigLayouts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void deepSeekV3KeepsKeysOnly_data();
    void deepSeekV3KeepsKeysOnly();
    void deepSeekV3OnTheGpu();

private:
    std::shared_ptr<const gguf::Model> m_model;
    std::uint64_t m_tensorBytes = 0;
};

void TestEstimateBigLayouts::initTestCase()
{
    const testsupport::ModelLayout layout = testsupport::bigLayout("DeepSeek-V3");
    m_tensorBytes = layout.tensorBytes();
    auto opened = testsupport::openLayout(layout);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    m_model = opened.value();
    QVERIFY(m_tensorBytes > std::uint64_t{350} << 30);  // a 671B model at about 4.5 bits
}

void TestEstimateBigLayouts::deepSeekV3KeepsKeysOnly_data()
{
    QTest::addColumn<std::uint64_t>("context");
    QTest::addColumn<QString>("cacheType");
    QTest::addColumn<std::uint64_t>("bytesPerValue");  // x 32 per block
    QTest::newRow("4096 f16") << std::uint64_t{4096} << "f16" << std::uint64_t{64};
    QTest::newRow("131072 f16") << std::uint64_t{131072} << "f16" << std::uint64_t{64};
    QTest::newRow("131072 q8_0") << std::uint64_t{131072} << "q8_0" << std::uint64_t{34};
}

void TestEstimateBigLayouts::deepSeekV3KeepsKeysOnly()
{
    QFETCH(std::uint64_t, context);
    QFETCH(QString, cacheType);
    QFETCH(std::uint64_t, bytesPerValue);
    gguf::EstimateOptions options;
    options.contextLength = context;
    options.keyType = options.valueType = gguf::findTypeByName(cacheType.toStdString())->id;
    const auto estimate = gguf::estimateMemory(*m_model, options);
    QVERIFY2(estimate, estimate ? "" : estimate.error().toString().c_str());
    QVERIFY(estimate->kvExact);
    QCOMPARE(estimate->kvLayers.size(), std::size_t{61});
    for (const gguf::LayerKvEstimate& layer : estimate->kvLayers)
        QCOMPARE(layer.valueBytes, std::uint64_t{0});
    QCOMPARE(estimate->kvTotal(), std::uint64_t{61} * 576 / 32 * bytesPerValue * context);
    if (context == 4096 && cacheType == "f16")
        QCOMPARE(double(estimate->kvTotal()) / (1 << 20), 274.5);
    QCOMPARE(estimate->weightsCpu, m_tensorBytes);
    QCOMPARE(estimate->recurrentTotal(), std::uint64_t{0});
}

void TestEstimateBigLayouts::deepSeekV3OnTheGpu()
{
    gguf::EstimateOptions options;
    options.contextLength = 4096;
    options.gpuLayers = 30;  // the last 30 layers: their weights and their cache
    const auto estimate = gguf::estimateMemory(*m_model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvGpu, std::uint64_t{30} * 576 * 4096 * 2);
    QCOMPARE(estimate->kvCpu, std::uint64_t{31} * 576 * 4096 * 2);
    // 30 MoE layers on the GPU; 28 MoE and the 3 dense layers, the embeddings and the output on the CPU.
    QVERIFY(estimate->weightsGpu > std::uint64_t{150} << 30 && estimate->weightsCpu > std::uint64_t{150} << 30);
    QCOMPARE(estimate->weightsCpu + estimate->weightsGpu, m_tensorBytes);
}

QTEST_GUILESS_MAIN(TestEstimateBigLayouts)
#include "tst_estimate_big_layouts.moc"
