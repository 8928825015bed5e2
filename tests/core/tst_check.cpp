// checkTensor (behind `gguf-explorer-cli check`): damage injected into chosen blocks of a copied
// fixture is reported at exactly those blocks and byte offsets with the right field and kind;
// clean fixtures report nothing; each tensor's SHA-256 equals an independent hash of its bytes
// read with plain file I/O; statistics keep working on damaged tensors.

#include "DamagedCopy.h"
#include "Fixtures.h"
#include "core/gguf/Model.h"
#include "core/analysis/Statistics.h"
#include "core/blocks/TensorCheck.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {

using K = gguf::DamageKind;

QByteArray rawTensorBytes(const QString& path, const gguf::TensorInfo& tensor)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(qint64(tensor.fileOffset)))
        return {};
    return file.read(qint64(tensor.nbytes));
}

QString describe(const gguf::DamagedBlock& block)
{
    return QStringLiteral("block %1 at %2: %3 (%4)").arg(block.block).arg(block.fileOffset).arg(QString::fromStdString(block.field),
                                                                                             QLatin1String(gguf::damageKindName(block.kind)));
}

}  // namespace

Q_DECLARE_METATYPE(QList<testsupport::Injection>)

class TestCheck : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void damageIsReportedAtExactlyTheInjectedBlocks_data();
    void damageIsReportedAtExactlyTheInjectedBlocks();
    void cleanFixturesPass_data();
    void cleanFixturesPass();
    void hashesMatchIndependentHashOfRawBytes_data() { cleanFixturesPass_data(); }
    void hashesMatchIndependentHashOfRawBytes();
    void everyNonFinitePatternIsFound();
    void maxScaleIsTheThreshold();
    void statisticsKeepWorkingOnDamage();
    void listIsCappedButCountIsNot();
    void truncatedFileIsAnErrorNotAHash();

private:
    QTemporaryDir m_dir;
};

void TestCheck::damageIsReportedAtExactlyTheInjectedBlocks_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QList<Injection>>("injections");
    QTest::newRow("q4_K and f32") << QStringLiteral("tiny-llama-Q4_K.gguf") << tinyLlamaQ4KInjections();
    QTest::newRow("q8_1 s and q8_K f32 d") << QStringLiteral("q8-internal-types.gguf")
        << QList<Injection>{{QStringLiteral("q8_1"), 3, 2, bytesOf({0x01, 0x7E}), QStringLiteral("s"), K::NonFiniteScale},
                            {QStringLiteral("q8_k"), 2, 0, bytesOf({0x28, 0x6B, 0x6E, 0x4E}), QStringLiteral("d"), K::AbsurdScale}};  // 1e9
    // Big-endian: scales and elements are stored byte-swapped.
    QTest::newRow("big-endian") << QStringLiteral("be.gguf")
        << QList<Injection>{{QStringLiteral("be.f16"), 10, 0, bytesOf({0x7C, 0x00}), QStringLiteral("value"), K::NonFiniteValue},
                            {QStringLiteral("be.bf16"), 63, 0, bytesOf({0xFF, 0xC0}), QStringLiteral("value"), K::NonFiniteValue},
                            {QStringLiteral("be.q4_K"), 1, 0, bytesOf({0x7E, 0x00}), QStringLiteral("d"), K::NonFiniteScale}};
    QTest::newRow("q8_0 and f16 in a MoE") << QStringLiteral("tiny-moe-F16.gguf")
        << QList<Injection>{{QStringLiteral("blk.1.ffn_up_exps.weight"), 12345, 0, bytesOf({0x00, 0xFE}), QStringLiteral("value"), K::NonFiniteValue}};
}

void TestCheck::damageIsReportedAtExactlyTheInjectedBlocks()
{
    QFETCH(QString, fixture);
    QFETCH(QList<Injection>, injections);
    const QString path = m_dir.filePath(QStringLiteral("damaged-") + fixture);
    const QString written = writeDamagedCopy(fixturePath(fixture), path, injections);
    QVERIFY2(written.isEmpty(), qPrintable(written));
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());

    QStringList expected;
    for (const Injection& injection : injections) {
        const gguf::TensorInfo* tensor = (*model)->findTensor(injection.tensor.toStdString());
        QVERIFY(tensor);
        expected << injection.tensor + QStringLiteral(": ")
                        + describe({injection.block, tensor->fileOffset + injection.block * tensor->traits->blockBytes, injection.kind,
                                    injection.field.toStdString(), 0.0});
    }
    QStringList found;
    for (const gguf::TensorInfo& tensor : (*model)->tensors()) {
        const gguf::TensorCheckResult result = gguf::checkTensor(tensor);
        QVERIFY2(!result.error, result.error ? result.error->toString().c_str() : "");
        QCOMPARE(result.damagedBlockCount, std::uint64_t(result.damagedBlocks.size()));
        for (const gguf::DamagedBlock& block : result.damagedBlocks)
            found << QString::fromUtf8(tensor.name.data(), int(tensor.name.size())) + QStringLiteral(": ") + describe(block);
    }
    expected.sort();
    found.sort();
    QCOMPARE(found, expected);
}

void TestCheck::cleanFixturesPass_data()
{
    QTest::addColumn<QString>("fixture");
    QStringList names = fixtureNames(QString(), QStringLiteral("tiny-*.gguf"));
    names << QStringLiteral("all-types.gguf") << QStringLiteral("q8-internal-types.gguf") << QStringLiteral("be.gguf")
          << QStringLiteral("be-fugg.gguf") << QStringLiteral("v1.gguf") << QStringLiteral("dims.gguf") << QStringLiteral("split-00001-of-00002.gguf")
          << QStringLiteral("odd/unknown_tensor_type_250.gguf") << QStringLiteral("odd/dim_zero.gguf");
    QVERIFY(names.size() > 20);
    for (const QString& name : names)
        QTest::newRow(qPrintable(name)) << name;
}

void TestCheck::cleanFixturesPass()
{
    QFETCH(QString, fixture);
    const auto model = gguf::Model::open(fixturePath(fixture).toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    for (const gguf::TensorInfo& tensor : (*model)->tensors()) {
        const gguf::TensorCheckResult result = gguf::checkTensor(tensor);
        QVERIFY2(!result.error, result.error ? result.error->toString().c_str() : "");
        QVERIFY2(!result.damaged(), qPrintable(QString::fromUtf8(tensor.name.data(), int(tensor.name.size())) + QStringLiteral(" reported damaged: ")
                                               + (result.damagedBlocks.empty() ? QString() : describe(result.damagedBlocks.front()))));
        if (tensor.traits)
            QCOMPARE(result.blockCount, tensor.nbytes / tensor.traits->blockBytes);
    }
}

void TestCheck::hashesMatchIndependentHashOfRawBytes()
{
    QFETCH(QString, fixture);
    const auto model = gguf::Model::open(fixturePath(fixture).toStdString());
    QVERIFY(model);
    for (const gguf::TensorInfo& tensor : (*model)->tensors()) {
        const QByteArray raw = rawTensorBytes(QString::fromStdString((*model)->shards()[tensor.shard]->path()), tensor);
        QCOMPARE(std::uint64_t(raw.size()), tensor.nbytes);
        const QByteArray expected = QCryptographicHash::hash(raw, QCryptographicHash::Sha256).toHex();
        QCOMPARE(QByteArray::fromStdString(gguf::Sha256::toHex(gguf::checkTensor(tensor).sha256)), expected);
    }
}

void TestCheck::everyNonFinitePatternIsFound()
{
    // All 65,536 f16 and bf16 patterns: exactly those with an all-ones exponent are NaN or Inf.
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("f16-bf16-all-bits.gguf")).toStdString());
    QVERIFY(model);
    for (const gguf::TensorInfo& tensor : (*model)->tensors()) {
        const gguf::TensorCheckResult result = gguf::checkTensor(tensor, {1e6, 100000});
        const std::uint16_t exponentMask = tensor.typeId == gguf::typeIdValue(gguf::GgmlTypeId::F16) ? 0x7C00 : 0x7F80;
        std::uint64_t expected = 0;
        for (std::uint32_t bits = 0; bits < 65536; ++bits)
            expected += (bits & exponentMask) == exponentMask;
        QCOMPARE(result.damagedBlockCount, expected);
        for (const gguf::DamagedBlock& block : result.damagedBlocks)
            QCOMPARE(std::uint32_t(block.block) & exponentMask, std::uint32_t(exponentMask));  // element i holds pattern i
    }
}

void TestCheck::maxScaleIsTheThreshold()
{
    const QString path = m_dir.filePath(QStringLiteral("absurd.gguf"));
    QVERIFY(writeDamagedCopy(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), path, {tinyLlamaQ4KInjections()[2]}).isEmpty());
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY(model);
    const gguf::TensorInfo* tensor = (*model)->findTensor("blk.0.attn_q.weight");
    const gguf::TensorCheckResult strict = gguf::checkTensor(*tensor, {4.0e6, 10});
    QCOMPARE(strict.damagedBlockCount, std::uint64_t(1));
    QCOMPARE(strict.damagedBlocks.front().value, 65504.0 * 63.0);
    QCOMPARE(gguf::checkTensor(*tensor, {4.2e6, 10}).damagedBlockCount, std::uint64_t(0));
}

void TestCheck::statisticsKeepWorkingOnDamage()
{
    const QString path = m_dir.filePath(QStringLiteral("stats.gguf"));
    QVERIFY(writeDamagedCopy(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), path, tinyLlamaQ4KInjections()).isEmpty());
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY(model);
    const auto norm = gguf::computeStatistics(gguf::wholeTensor(*(*model)->findTensor("blk.0.attn_norm.weight")), 10);
    QVERIFY(norm);
    QCOMPARE(norm->statistics.nanCount, std::uint64_t(1));
    QCOMPARE(norm->statistics.infCount, std::uint64_t(1));
    QVERIFY(std::isfinite(norm->statistics.mean));
    const auto q = gguf::computeStatistics(gguf::wholeTensor(*(*model)->findTensor("blk.0.attn_q.weight")), 10);
    QVERIFY(q);
    QVERIFY(q->statistics.nanCount + q->statistics.infCount > 0);
}

void TestCheck::listIsCappedButCountIsNot()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("f16-bf16-all-bits.gguf")).toStdString());
    QVERIFY(model);
    const gguf::TensorCheckResult result = gguf::checkTensor((*model)->tensors().front(), {1e6, 5});
    QCOMPARE(result.damagedBlocks.size(), std::size_t(5));
    QVERIFY(result.damagedBlockCount > 5);
}

void TestCheck::truncatedFileIsAnErrorNotAHash()
{
    const QString path = m_dir.filePath(QStringLiteral("truncated.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), path));
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY(model);
    const gguf::TensorInfo& last = (*model)->tensors().back();
    QVERIFY(QFile::resize(path, qint64(last.fileOffset / 4096 * 4096)));
    const gguf::TensorCheckResult result = gguf::checkTensor(last);
    QVERIFY(result.error);
    QVERIFY2(QString::fromStdString(result.error->message).contains(QStringLiteral("changed on disk")), result.error->message.c_str());
}

QTEST_GUILESS_MAIN(TestCheck)
#include "tst_check.moc"
