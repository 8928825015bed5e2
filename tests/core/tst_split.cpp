// A split model (llama.cpp's gguf-split) opens as one model: tiny-llama-Q4_K.gguf divided into
// two shards must give back the same 21 tensors with the same values, and the model metadata
// of shard 1. A missing shard is an error that names the missing file.

#include "Fixtures.h"
#include "Manifest.h"
#include "core/gguf/Model.h"
#include "SliceDigest.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

class TestSplit : public QObject {
    Q_OBJECT

private slots:
    void opensAsOneModel();
    void tensorsMatchTheUnsplitModel();
    void missingShardIsNamed();
};

void TestSplit::opensAsOneModel()
{
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("split-00001-of-00002.gguf")).toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    const gguf::Model& m = *model.value();
    QCOMPARE(m.shards().size(), std::size_t(2));
    QCOMPARE(m.tensors().size(), std::size_t(21));
    // Tensors 0-10 live in shard 1, 11-20 in shard 2.
    for (std::size_t i = 0; i < m.tensors().size(); ++i)
        QCOMPARE(m.tensors()[i].shard, i < 11 ? 0u : 1u);

    // The model's metadata is shard 1's: the 25 model keys plus the three split keys.
    QCOMPARE(&m.metadata(), &m.shards().front()->metadata());
    QCOMPARE(m.metadata().size(), std::size_t(28));
    QCOMPARE(QString::fromStdString(m.metadataString("general.architecture")), QStringLiteral("llama"));
    QCOMPARE(m.metadataUInt("split.no"), std::optional<std::uint64_t>(0));
    QCOMPARE(m.metadataUInt("split.count"), std::optional<std::uint64_t>(2));
    QCOMPARE(m.metadataUInt("llama.block_count"), std::optional<std::uint64_t>(2));
    QCOMPARE(m.shards()[1]->metadata().size(), std::size_t(3));

    const gguf::ModelSummary summary = m.summary();
    QCOMPARE(summary.fileSize, std::uint64_t(569856 + 555712));
}

void TestSplit::tensorsMatchTheUnsplitModel()
{
    QString error;
    const auto reference = Manifest::load(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf.json")), &error);
    QVERIFY2(reference, qPrintable(error));
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("split-00001-of-00002.gguf")).toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    const auto& tensors = model.value()->tensors();
    QCOMPARE(static_cast<qsizetype>(tensors.size()), reference->tensors.size());

    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const ManifestTensor& expected = reference->tensors[static_cast<qsizetype>(i)];
        const gguf::TensorInfo& tensor = tensors[i];
        QCOMPARE(QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size())), expected.name);
        QCOMPARE(tensor.typeId, expected.typeId);
        QCOMPARE(tensor.nbytes, expected.nbytes);
        // Lookup by name must find the copy that knows its shard.
        QCOMPARE(model.value()->findTensor(tensor.name), &tensor);
        const auto digest = digestSlice(gguf::wholeTensor(tensor));
        QVERIFY2(digest, digest ? "" : digest.error().message.c_str());
        QVERIFY2(digest->sha256 == expected.sha256, qPrintable(expected.name));
    }
}

void TestSplit::missingShardIsNamed()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString copy = dir.filePath(QStringLiteral("split-00001-of-00002.gguf"));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("split-00001-of-00002.gguf")), copy));

    // The shard on its own is a valid GGUF file ...
    QVERIFY(gguf::GgufFile::open(copy.toStdString()));
    // ... but not a complete model.
    const auto model = gguf::Model::open(copy.toStdString());
    QVERIFY(!model);
    // The core puts the file an error is about in Error::path and the rest in the message;
    // toString() joins them, and that is what the CLI and the GUI show.
    const QString shown = QString::fromStdString(model.error().toString());
    QVERIFY2(shown.contains(QLatin1String("split-00002-of-00002.gguf")), qPrintable(shown));
    QVERIFY2(shown.contains(QLatin1String("missing")), qPrintable(shown));
    QCOMPARE(QString::fromStdString(model.error().path), dir.filePath(QStringLiteral("split-00002-of-00002.gguf")));
}

QTEST_GUILESS_MAIN(TestSplit)
#include "tst_split.moc"
