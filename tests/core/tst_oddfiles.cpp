// The valid-but-unusual files in fixtures/odd/ must open and behave as odd/README.md says:
// unknown and retired tensor types are listed and bounded but refuse to dequantize, an empty
// tensor yields nothing, and a tensor with no stored dims is a one-element scalar.
// Each odd file is bad-base.gguf with one change, so the untouched tensors are checked against
// bad-base.gguf.json.

#include "core/gguf/Dequantize.h"
#include "Fixtures.h"
#include "Manifest.h"
#include "core/gguf/Model.h"
#include "SliceDigest.h"
#include "core/write/SliceExporter.h"
#include "core/analysis/Statistics.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {

constexpr std::uint64_t kDataOffset = 448;  // of bad-base.gguf and every odd file

// Collects exported bytes in memory.
class BufferSink final : public gguf::ByteSink {
public:
    gguf::Status write(const void* data, std::size_t size) override
    {
        bytes.append(static_cast<const char*>(data), static_cast<qsizetype>(size));
        return gguf::Ok{};
    }
    gguf::Status commit() override { return gguf::Ok{}; }
    QByteArray bytes;
};

QString odd(const char* file)
{
    return fixturePath(QStringLiteral("odd/") + QLatin1String(file));
}

}  // namespace

class TestOddFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void typeWithoutTraits_data();
    void typeWithoutTraits();
    void unknownTypeAsLastTensorIsBoundedByTheFileEnd();
    void emptyTensor();
    void scalarTensor();

private:
    // The tensors bad-base.gguf shares with an odd file must dequantize as the manifest says.
    void verifyUntouchedTensor(const gguf::GgufFile& file, const char* name);

    std::optional<Manifest> m_base;
};

void TestOddFiles::initTestCase()
{
    QString error;
    m_base = Manifest::load(fixturePath(QStringLiteral("bad-base.gguf.json")), &error);
    QVERIFY2(m_base, qPrintable(error));
    QCOMPARE(m_base->dataOffset, kDataOffset);
}

void TestOddFiles::verifyUntouchedTensor(const gguf::GgufFile& file, const char* name)
{
    const gguf::TensorInfo* tensor = file.findTensor(name);
    QVERIFY2(tensor, name);
    const ManifestTensor* expected = m_base->findTensor(QLatin1String(name));
    QVERIFY2(expected, name);
    const auto digest = digestSlice(gguf::wholeTensor(*tensor));
    QVERIFY2(digest, digest ? "" : digest.error().message.c_str());
    QCOMPARE(digest->sha256, expected->sha256);
}

void TestOddFiles::typeWithoutTraits_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<quint32>("typeId");
    QTest::addColumn<QString>("typeName");
    QTest::addColumn<bool>("retired");
    QTest::newRow("unknown 250") << odd("unknown_tensor_type_250.gguf") << 250u << QStringLiteral("unknown type 250") << false;
    QTest::newRow("retired 4") << odd("tensor_type_removed_4.gguf") << 4u << QStringLiteral("retired type 4") << true;
}

void TestOddFiles::typeWithoutTraits()
{
    QFETCH(QString, path);
    QFETCH(quint32, typeId);
    QFETCH(QString, typeName);
    QFETCH(bool, retired);

    QCOMPARE(QString::fromStdString(gguf::typeName(typeId)), typeName);
    QCOMPARE(gguf::isRetiredTypeId(typeId), retired);
    QVERIFY(gguf::findType(typeId) == nullptr);

    const auto opened = gguf::GgufFile::open(path.toStdString());
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    const gguf::GgufFile& file = **opened;
    QCOMPARE(file.tensors().size(), std::size_t(3));

    const gguf::TensorInfo* tensor = file.findTensor("b.q4_K");
    QVERIFY(tensor);
    QCOMPARE(tensor->typeId, typeId);
    QVERIFY(!tensor->sizeKnown());
    QCOMPARE(tensor->nDims, 2u);
    QCOMPARE(tensor->ne[0], std::int64_t(256));
    QCOMPARE(tensor->ne[1], std::int64_t(2));
    QCOMPARE(tensor->offset, std::uint64_t(256));
    QCOMPARE(tensor->fileOffset, kDataOffset + 256);
    // Its size cannot be computed, so it runs up to the next tensor (c.f16 at 544).
    QCOMPARE(tensor->nbytes, std::uint64_t(544 - 256));

    // Asking for its values fails, naming the tensor and the type; nothing crashes on the way.
    const gguf::TensorSlice slice = gguf::wholeTensor(*tensor);
    const gguf::Status streamed = gguf::forEachChunk(slice, 1024, [](std::span<const float>, std::uint64_t) { return true; });
    QVERIFY(!streamed);
    QVERIFY2(QString::fromStdString(streamed.error().message).contains(typeName), streamed.error().message.c_str());
    QVERIFY2(QString::fromStdString(streamed.error().message).contains(QLatin1String("b.q4_K")), streamed.error().message.c_str());
    std::vector<float> row(256);
    QVERIFY(!gguf::dequantizeRows(*tensor, 0, 1, row));
    const auto statistics = gguf::computeStatistics(slice, 8);
    QVERIFY(!statistics);
    QVERIFY(QString::fromStdString(statistics.error().message).contains(typeName));
    BufferSink sink;
    QVERIFY(!gguf::exportSlice(slice, gguf::ExportFormat::RawF32, sink));

    verifyUntouchedTensor(file, "a.f32");
    verifyUntouchedTensor(file, "c.f16");

    // The model view (what the GUI and CLI use) opens it too and counts the odd tensor.
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    const gguf::ModelSummary summary = model.value()->summary();
    QVERIFY(std::any_of(summary.typeTotals.begin(), summary.typeTotals.end(),
                        [&](const gguf::TypeTotal& total) { return total.typeId == typeId && total.tensorCount == 1; }));
}

void TestOddFiles::unknownTypeAsLastTensorIsBoundedByTheFileEnd()
{
    // No fixture has the unknown type last, so give c.f16 (info at 393; its type id sits after the
    // u64 name length, 5 name bytes, u32 n_dims and one u64 dim) type 250 too.
    QByteArray bytes = readWholeFile(odd("unknown_tensor_type_250.gguf"));
    QCOMPARE(bytes.size(), qsizetype(1120));
    constexpr qsizetype kTypeField = 393 + 8 + 5 + 4 + 8;
    QCOMPARE(bytes.mid(kTypeField, 4), QByteArray("\x01\x00\x00\x00", 4));  // f16, as expected
    bytes.replace(kTypeField, 4, QByteArray("\xFA\x00\x00\x00", 4));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("unknown-last.gguf"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(bytes), bytes.size());
    out.close();

    const auto opened = gguf::GgufFile::open(path.toStdString());
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    const gguf::TensorInfo* last = opened.value()->findTensor("c.f16");
    QVERIFY(last);
    QCOMPARE(QString::fromStdString(gguf::typeName(last->typeId)), QStringLiteral("unknown type 250"));
    QCOMPARE(last->nbytes, std::uint64_t(1120 - kDataOffset - 544));
    QCOMPARE(opened.value()->findTensor("b.q4_K")->nbytes, std::uint64_t(544 - 256));
}

void TestOddFiles::emptyTensor()
{
    const auto opened = gguf::GgufFile::open(odd("dim_zero.gguf").toStdString());
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    const gguf::GgufFile& file = **opened;
    QCOMPARE(file.tensors().size(), std::size_t(3));
    const gguf::TensorInfo* tensor = file.findTensor("b.q4_K");
    QVERIFY(tensor);
    QCOMPARE(tensor->nDims, 2u);
    QCOMPARE(tensor->ne[0], std::int64_t(256));
    QCOMPARE(tensor->ne[1], std::int64_t(0));
    QCOMPARE(tensor->elementCount(), std::uint64_t(0));
    QCOMPARE(tensor->nbytes, std::uint64_t(0));

    const gguf::TensorSlice slice = gguf::wholeTensor(*tensor);
    QCOMPARE(slice.elementCount(), std::uint64_t(0));
    QCOMPARE(slice.shape, (std::vector<std::uint64_t>{0, 256}));
    int chunks = 0;
    const gguf::Status streamed = gguf::forEachChunk(slice, 1024, [&](std::span<const float>, std::uint64_t) {
        ++chunks;
        return true;
    });
    QVERIFY2(streamed, streamed ? "" : streamed.error().message.c_str());
    QCOMPARE(chunks, 0);
    const auto statistics = gguf::computeStatistics(slice, 8);
    QVERIFY2(statistics, statistics ? "" : statistics.error().message.c_str());
    QCOMPARE(statistics->statistics.count, std::uint64_t(0));

    // An empty .npy is still a valid array of shape (0, 256).
    BufferSink sink;
    QVERIFY(gguf::exportSlice(slice, gguf::ExportFormat::Npy, sink));
    QVERIFY(sink.bytes.contains("'shape': (0, 256)"));
    QCOMPARE(sink.bytes.size() % 64, qsizetype(0));  // header only

    verifyUntouchedTensor(file, "a.f32");
    verifyUntouchedTensor(file, "c.f16");
}

void TestOddFiles::scalarTensor()
{
    const auto opened = gguf::GgufFile::open(odd("n_dims_0.gguf").toStdString());
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    const gguf::GgufFile& file = **opened;
    QCOMPARE(file.tensors().size(), std::size_t(3));
    const gguf::TensorInfo* tensor = file.findTensor("c.f16");
    QVERIFY(tensor);
    QCOMPARE(tensor->nDims, 0u);
    QCOMPARE(tensor->elementCount(), std::uint64_t(1));
    QCOMPARE(tensor->nbytes, std::uint64_t(2));  // one f16

    const gguf::TensorSlice slice = gguf::wholeTensor(*tensor);
    QVERIFY(slice.shape.empty());
    QCOMPARE(slice.elementCount(), std::uint64_t(1));
    const auto digest = digestSlice(slice);
    QVERIFY2(digest, digest ? "" : digest.error().message.c_str());
    QCOMPARE(digest->count, std::uint64_t(1));
    // The data is bad-base's c.f16, so the scalar is that tensor's first value.
    QCOMPARE(digest->first8.value(0), m_base->findTensor(QStringLiteral("c.f16"))->first8.value(0));

    BufferSink sink;
    QVERIFY(gguf::exportSlice(slice, gguf::ExportFormat::Npy, sink));
    QVERIFY(sink.bytes.contains("'shape': ()"));

    verifyUntouchedTensor(file, "a.f32");
    verifyUntouchedTensor(file, "b.q4_K");
}

QTEST_GUILESS_MAIN(TestOddFiles)
#include "tst_oddfiles.moc"
