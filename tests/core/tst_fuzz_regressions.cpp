// Hostile inputs kept as regressions (tests/data/regressions, see its README) and the committed
// fuzzing corpus (fuzz/corpus) replayed in the ordinary build and under the asan preset: each
// file is rejected with the recorded message, or opens and survives everything a view does with
// it (metadata rendering, dequantization, block scales, heatmap window, integrity check); the
// scan files of fuzz_scan_file's corpus are read as scan files.

#include "core/blocks/BlockScales.h"
#include "core/gguf/Dequantize.h"
#include "core/write/GgufWriter.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/Model.h"
#include "core/blocks/TensorCheck.h"
#include "core/sensitivity/ScanFile.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Expectation {
    const char* file;
    const char* rejectedWith;  // nullptr: the file must open
};

const Expectation kExpectations[] = {
    {"empty_tensor_2e40_rows.gguf", "elements per byte of the file"},
    {"empty_expert_tensor_2e32_experts.gguf", "elements per byte of the file"},
    {"empty_tensor_extent_overflow.gguf", "elements per byte of the file"},
    {"unknown_type_2e50_elements.gguf", "elements per byte of the file"},
    {"empty_tensor_copied_smaller.gguf", nullptr},
};

const Expectation* findExpectation(const QString& file)
{
    for (const Expectation& expectation : kExpectations)
        if (file == QLatin1String(expectation.file))
            return &expectation;
    return nullptr;
}

QString regressionsDir()
{
    const QString dir = QStringLiteral(GGUFX_SOURCE_DIR "/tests/data/regressions");
    return QFileInfo(dir).isDir() ? dir : QString();
}

// What the tensor and metadata views do with an opened file, bounded per tensor.
void exercise(const gguf::Model& model)
{
    for (const gguf::MetadataEntry& entry : model.metadata())
        (void)gguf::formatValue(entry.value);
    for (const gguf::TensorInfo& tensor : model.tensors()) {
        if (tensor.traits && tensor.traits->dequantize && tensor.rowCount() > 0) {
            const std::uint64_t rows = std::min<std::uint64_t>(tensor.rowCount(), std::max<std::uint64_t>(1, 65536 / std::max<std::int64_t>(tensor.ne[0], 1)));
            std::vector<float> values(rows * static_cast<std::uint64_t>(tensor.ne[0]));
            QVERIFY(gguf::dequantizeRows(tensor, 0, rows, values).ok());
            gguf::BlockScales scales;
            QCOMPARE(gguf::extractRowScales(tensor, 0, rows, scales).ok(), gguf::blockScaleLayout(tensor.typeId).has_value());
            const gguf::TensorSlice slice = gguf::wholeTensor(tensor);
            const gguf::HeatmapRegion region{0, rows, 0, slice.rowLength()};
            if (slice.rowLength() > 0) {
                const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, 8, 8, gguf::CellAggregate::Mean);
                std::vector<float> cells(std::size_t(grid.rows) * grid.columns);
                QVERIFY(gguf::reduceHeatmapRows(slice, grid, 0, grid.rows, cells).ok());
            }
        } else if (!tensor.traits || !tensor.traits->dequantize) {
            QVERIFY(!gguf::dequantizeRows(tensor, 0, std::min<std::uint64_t>(tensor.rowCount(), 1), {}).ok() || tensor.rowCount() == 0);
        }
        QVERIFY(!gguf::checkTensor(tensor).error);
    }
}

// What File › Convert and the writers' fuzz harness do: copy the file with GgufWriter. Whatever
// this parser accepted, the copy it writes must open again with the same tensors.
void copyReopens(const gguf::Model& model)
{
    const gguf::GgufFile& file = model.primary();
    if (model.shards().size() != 1 || file.alignment() > 4096)
        return;
    gguf::GgufWriter writer;
    QVERIFY(writer.copyMetadata(file).ok());
    std::size_t copied = 0;
    for (const gguf::TensorInfo& tensor : file.tensors()) {
        gguf::TensorSpec spec{std::string(tensor.name), tensor.typeId, {}};
        for (std::uint32_t d = 0; d < tensor.nDims; ++d)
            spec.ne.push_back(tensor.ne[d]);
        const gguf::TensorInfo* from = &tensor;
        if (writer.addTensor(std::move(spec), [from](gguf::ByteSink& out) { return out.write(from->data, from->nbytes); }).ok())
            ++copied;
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("copy.gguf")).toStdString();
    const gguf::Status written = writer.writeFile(path);
    QVERIFY2(written, written ? "" : written.error().toString().c_str());
    const auto copy = gguf::GgufFile::open(path);
    QVERIFY2(copy, copy ? "" : copy.error().toString().c_str());
    QCOMPARE((*copy)->tensors().size(), copied);
}

}  // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void tableCoversExactlyTheRegressionFiles();
    void regressionFileBehavesAsRecorded_data();
    void regressionFileBehavesAsRecorded();
    void fuzzCorpusReplaysCleanly_data();
    void fuzzCorpusReplaysCleanly();
};

void TestFuzzRegressions::tableCoversExactlyTheRegressionFiles()
{
    QVERIFY2(!regressionsDir().isEmpty(), "tests/data/regressions not found");
    const QStringList files = QDir(regressionsDir()).entryList({QStringLiteral("*.gguf")}, QDir::Files, QDir::Name);
    QCOMPARE(qsizetype(files.size()), qsizetype(std::size(kExpectations)));
    for (const QString& file : files)
        QVERIFY2(findExpectation(file), qPrintable(QStringLiteral("no expectation for %1: add it to the table and the README").arg(file)));
}

void TestFuzzRegressions::regressionFileBehavesAsRecorded_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = QDir(regressionsDir()).entryList({QStringLiteral("*.gguf")}, QDir::Files, QDir::Name);
    QVERIFY2(!files.isEmpty(), qPrintable(QStringLiteral("no regression inputs in ") + regressionsDir()));
    for (const QString& file : files)
        QTest::newRow(qPrintable(file)) << file;
}

void TestFuzzRegressions::regressionFileBehavesAsRecorded()
{
    QFETCH(QString, file);
    const Expectation* expectation = findExpectation(file);
    QVERIFY(expectation);
    const QString path = QDir(regressionsDir()).filePath(file);
    const auto model = gguf::Model::open(path.toStdString());
    if (expectation->rejectedWith) {
        QVERIFY2(!model, "a regression input that must be rejected opened");
        QVERIFY2(model.error().message.find(expectation->rejectedWith) != std::string::npos, model.error().toString().c_str());
        QVERIFY(model.error().offset <= std::uint64_t(QFileInfo(path).size()));
        return;
    }
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    exercise(**model);
    copyReopens(**model);
}

void TestFuzzRegressions::fuzzCorpusReplaysCleanly_data()
{
    QTest::addColumn<QString>("path");
    const QString corpus = QFileInfo(QStringLiteral(GGUFX_SOURCE_DIR "/fuzz/corpus")).isDir() ? QStringLiteral(GGUFX_SOURCE_DIR "/fuzz/corpus") : QString();
    QVERIFY2(!corpus.isEmpty(), "fuzz/corpus not found");
    QDirIterator it(corpus, QDir::Files, QDirIterator::Subdirectories);
    int count = 0;
    while (it.hasNext()) {
        const QString path = it.next();
        QTest::newRow(qPrintable(QDir(corpus).relativeFilePath(path))) << path;
        ++count;
    }
    QVERIFY(count > 0);
}

void TestFuzzRegressions::fuzzCorpusReplaysCleanly()
{
    QFETCH(QString, path);
    if (path.contains(QStringLiteral("/fuzz_scan_file/"))) {  // scan files, not models
        const auto record = gguf::readScanFile(path.toStdString());
        if (!record) {
            QVERIFY(!record.error().message.empty());
            QVERIFY(record.error().offset == gguf::Error::kNoOffset || record.error().offset <= std::uint64_t(QFileInfo(path).size()));
            return;
        }
        QVERIFY(gguf::parseScanRecord(gguf::scanRecordJson(*record), "written"));
        return;
    }
    const auto model = gguf::Model::open(path.toStdString());
    if (!model) {
        QVERIFY(!model.error().message.empty());
        return;
    }
    exercise(**model);
    copyReopens(**model);
}

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
