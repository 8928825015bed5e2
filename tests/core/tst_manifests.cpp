// Every fixture with a manifest, checked against it field by field: header, metadata (order,
// types, exact values), tensor index, the SHA-256 of every dequantized tensor and expert, and the
// core's statistics. New fixtures are picked up by the glob.

#include "Fixtures.h"
#include "Manifest.h"
#include "ManifestModel.h"
#include "MetadataComparison.h"
#include "SliceDigest.h"
#include "core/analysis/Statistics.h"

#include <QtTest>

#include <cmath>

using namespace testsupport;

namespace {

// Tallies for the closing note: how many hashes were compared and how many matched.
struct HashTally {
    int checked = 0;
    int passed = 0;
};

QString number(double value)
{
    return QString::number(value, 'g', 17);
}

// The manifest's statistics cover all values; the core's min/max/mean/rms cover finite values
// and count NaN and Inf apart. With only finite values both mean the same; otherwise the
// manifest's "nan"/"inf" strings must be explained by the core's NaN/Inf counts.
void compareStatistics(const gguf::Statistics& actual, const SliceDigest& digest, double min, double max, double mean, double rms,
                       bool checkMinMax, const QString& where, QStringList& mismatches)
{
    if (actual.count != digest.count || actual.nanCount != digest.nanCount || actual.infCount != digest.infCount)
        mismatches << QStringLiteral("%1: statistics count %2 values (%3 NaN, %4 Inf), the dequantized stream has %5 (%6 NaN, %7 Inf)")
                          .arg(where).arg(actual.count).arg(actual.nanCount).arg(actual.infCount)
                          .arg(digest.count).arg(digest.nanCount).arg(digest.infCount);
    if (digest.nanCount == 0 && digest.infCount == 0) {
        if (checkMinMax && (actual.min != min || actual.max != max))
            mismatches << QStringLiteral("%1: min/max %2/%3, manifest %4/%5").arg(where, number(actual.min), number(actual.max), number(min), number(max));
        // The core promises (Statistics.h) to sum in double in storage order, as the manifests'
        // reference did, so mean and rms agree bit for bit; a tolerance would hide a change of that.
        if (actual.mean != mean || actual.rms != rms)
            mismatches << QStringLiteral("%1: mean/rms %2/%3, manifest %4/%5").arg(where, number(actual.mean), number(actual.rms), number(mean), number(rms));
        return;
    }
    const bool manifestSaysNonFinite = std::isnan(mean) || std::isinf(mean) || std::isnan(rms) || std::isinf(rms)
                                     || (checkMinMax && (std::isinf(min) || std::isinf(max)));
    if (!manifestSaysNonFinite)
        mismatches << QStringLiteral("%1: the stream has NaN/Inf but the manifest's statistics are all finite").arg(where);
    if (checkMinMax && (std::isinf(min) || std::isinf(max)) && actual.infCount == 0)
        mismatches << QStringLiteral("%1: manifest min/max are infinite but the core counts no Inf").arg(where);
    if (actual.finiteCount > 0 && !(std::isfinite(actual.min) && std::isfinite(actual.max) && std::isfinite(actual.mean) && std::isfinite(actual.rms)))
        mismatches << QStringLiteral("%1: statistics over finite values are not finite").arg(where);
}

QString tensorInfoMismatch(const gguf::TensorInfo& actual, const ManifestTensor& expected)
{
    QStringList problems;
    const QString name = QString::fromUtf8(actual.name.data(), static_cast<qsizetype>(actual.name.size()));
    if (name != expected.name)
        problems << QStringLiteral("name '%1'").arg(name);
    if (QString::fromStdString(gguf::typeName(actual.typeId)) != expected.type)
        problems << QStringLiteral("type %1").arg(QString::fromStdString(gguf::typeName(actual.typeId)));
    if (actual.typeId != expected.typeId)
        problems << QStringLiteral("type id %1").arg(actual.typeId);
    QList<std::int64_t> ne;
    for (std::uint32_t d = 0; d < actual.nDims; ++d)
        ne << actual.ne[d];
    if (ne != expected.ne) {
        QStringList dims;
        for (const std::int64_t dim : ne)
            dims << QString::number(dim);
        problems << QStringLiteral("stored dims [%1]").arg(dims.join(QLatin1Char(',')));
    }
    if (actual.offset != expected.offset)
        problems << QStringLiteral("offset %1").arg(actual.offset);
    if (actual.nbytes != expected.nbytes)
        problems << QStringLiteral("nbytes %1").arg(actual.nbytes);
    if (problems.isEmpty())
        return {};
    return QStringLiteral("tensor '%1': %2").arg(expected.name, problems.join(QStringLiteral(", ")));
}

// The manifests print -0.0 as 0, so first8 is compared by value; the hash already covers the bits.
QString firstValuesMismatch(const SliceDigest& digest, const QList<float>& expected)
{
    const auto sameValue = [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    const bool same = digest.first8.size() == expected.size()
                   && std::equal(expected.begin(), expected.end(), digest.first8.begin(), sameValue);
    if (same)
        return {};
    QStringList have;
    QStringList want;
    for (const float v : digest.first8)
        have << QString::number(v, 'g', 9);
    for (const float v : expected)
        want << QString::number(v, 'g', 9);
    return QStringLiteral("first values [%1], manifest [%2]").arg(have.join(QLatin1Char(',')), want.join(QLatin1Char(',')));
}

}  // namespace

class TestManifests : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void header_data() { addManifestRows(false); }
    void header();
    void metadata_data() { addManifestRows(false); }
    void metadata();
    void tensors_data() { addManifestRows(false); }
    void tensors();
    void experts_data() { addManifestRows(true); }
    void experts();
    void splitOpensTheSameModelFromEitherShard();

private:
    static void addManifestRows(bool onlyWithExperts);
    static std::optional<Manifest> loadRow(QString* error);

    HashTally m_tensorHashes;
    HashTally m_expertHashes;
};

void TestManifests::initTestCase()
{
    // A wrong fixtures path must fail loudly, not pass with zero rows.
    QVERIFY2(QDir(fixturesDir()).exists(), qPrintable(QStringLiteral("fixtures folder missing: ") + fixturesDir()));
    QVERIFY2(fixtureNames(QString(), QStringLiteral("*.gguf.json")).size() >= 40, "expected the full set of fixture manifests");
}

void TestManifests::cleanupTestCase()
{
    qInfo("tensor hashes: %d checked, %d passed; expert hashes: %d checked, %d passed", m_tensorHashes.checked, m_tensorHashes.passed,
          m_expertHashes.checked, m_expertHashes.passed);
}

void TestManifests::addManifestRows(bool onlyWithExperts)
{
    QTest::addColumn<QString>("manifestPath");
    for (const QString& name : fixtureNames(QString(), QStringLiteral("*.gguf.json"))) {
        const QString path = fixturePath(name);
        if (onlyWithExperts) {
            QString error;
            const auto manifest = Manifest::load(path, &error);
            const bool hasExperts = !manifest || std::any_of(manifest->tensors.begin(), manifest->tensors.end(),
                                                             [](const ManifestTensor& t) { return !t.experts.isEmpty(); });
            if (!hasExperts)
                continue;  // a broken manifest still gets a row, and fails there
        }
        QTest::newRow(qPrintable(name)) << path;
    }
}

std::optional<Manifest> TestManifests::loadRow(QString* error)
{
    QFETCH(QString, manifestPath);
    return Manifest::load(manifestPath, error);
}

void TestManifests::header()
{
    QString error;
    const auto manifest = loadRow(&error);
    QVERIFY2(manifest, qPrintable(error));
    const auto opened = openManifestModel(*manifest);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    const gguf::GgufFile& file = *opened->file;

    // A fixture that changed on disk would make every other comparison meaningless.
    QCOMPARE(sha256Hex(readWholeFile(manifest->filePath())), manifest->fileSha256);
    QCOMPARE(file.fileSize(), manifest->fileSize);
    QCOMPARE(QString::fromStdString(file.magic()), manifest->magic);
    QCOMPARE(file.bigEndian() ? QStringLiteral("big") : QStringLiteral("little"), manifest->byteOrder);
    QCOMPARE(file.version(), manifest->version);
    QCOMPARE(file.alignment(), manifest->alignment);
    QCOMPARE(file.dataOffset(), manifest->dataOffset);
    QCOMPARE(static_cast<std::uint64_t>(file.metadata().size()), manifest->kvCount);
    QCOMPARE(static_cast<std::uint64_t>(file.tensors().size()), manifest->tensorCount);
    QCOMPARE(static_cast<std::uint64_t>(opened->tensors.size()), manifest->tensorCount);
}

void TestManifests::metadata()
{
    QString error;
    const auto manifest = loadRow(&error);
    QVERIFY2(manifest, qPrintable(error));
    const auto opened = openManifestModel(*manifest);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());

    const QStringList mismatches = compareMetadata(*opened->file, *manifest);
    QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
}

void TestManifests::tensors()
{
    QString error;
    const auto manifest = loadRow(&error);
    QVERIFY2(manifest, qPrintable(error));
    const auto opened = openManifestModel(*manifest);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    QCOMPARE(static_cast<qsizetype>(opened->tensors.size()), manifest->tensors.size());

    // Collect every mismatch of the file before failing, so one run names all broken types.
    QStringList mismatches;
    for (qsizetype i = 0; i < manifest->tensors.size(); ++i) {
        const ManifestTensor& expected = manifest->tensors[i];
        const gguf::TensorInfo& tensor = *opened->tensors[static_cast<std::size_t>(i)];
        if (const QString problem = tensorInfoMismatch(tensor, expected); !problem.isEmpty()) {
            mismatches << problem;
            continue;
        }
        const gguf::TensorSlice slice = gguf::wholeTensor(tensor);
        ++m_tensorHashes.checked;
        const auto digest = digestSlice(slice);
        if (!digest) {
            mismatches << QStringLiteral("tensor '%1' (%2): %3").arg(expected.name, expected.type, QString::fromStdString(digest.error().message));
            continue;
        }
        if (digest->sha256 != expected.sha256) {
            const QString firstValues = firstValuesMismatch(*digest, expected.first8);
            mismatches << QStringLiteral("tensor '%1' (%2): sha256 differs; %3")
                              .arg(expected.name, expected.type, firstValues.isEmpty() ? QStringLiteral("the first 8 values match") : firstValues);
            continue;
        }
        ++m_tensorHashes.passed;
        if (const QString problem = firstValuesMismatch(*digest, expected.first8); !problem.isEmpty())
            mismatches << QStringLiteral("tensor '%1': %2").arg(expected.name, problem);
        if (digest->count != tensor.elementCount())
            mismatches << QStringLiteral("tensor '%1': %2 values streamed, %3 elements").arg(expected.name).arg(digest->count).arg(tensor.elementCount());

        const auto statistics = gguf::computeStatistics(slice, 16);
        if (!statistics) {
            mismatches << QStringLiteral("tensor '%1': statistics failed: %2").arg(expected.name, QString::fromStdString(statistics.error().message));
            continue;
        }
        compareStatistics(statistics->statistics, *digest, expected.min, expected.max, expected.mean, expected.rms, true,
                          QStringLiteral("tensor '%1'").arg(expected.name), mismatches);
    }
    QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
}

void TestManifests::experts()
{
    QString error;
    const auto manifest = loadRow(&error);
    QVERIFY2(manifest, qPrintable(error));
    const auto opened = openManifestModel(*manifest);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());

    QStringList mismatches;
    int expertTensors = 0;
    for (const ManifestTensor& expected : manifest->tensors) {
        if (expected.experts.isEmpty())
            continue;
        ++expertTensors;
        const gguf::TensorInfo* tensor = opened->model->findTensor(expected.name.toStdString());
        QVERIFY2(tensor, qPrintable(expected.name));
        // The manifest lists every expert, so a count mismatch means a slicing bug or a bad manifest.
        QCOMPARE(static_cast<qsizetype>(tensor->ne[2]), expected.experts.size());
        for (const ManifestExpert& expert : expected.experts) {
            const QString where = QStringLiteral("tensor '%1' expert %2").arg(expected.name).arg(expert.index);
            const auto slice = gguf::expertSlice(*tensor, expert.index);
            ++m_expertHashes.checked;
            if (!slice) {
                mismatches << where + QStringLiteral(": ") + QString::fromStdString(slice.error().message);
                continue;
            }
            if (slice->elementCount() != static_cast<std::uint64_t>(tensor->ne[0] * tensor->ne[1])
                || slice->shape != std::vector<std::uint64_t>{static_cast<std::uint64_t>(tensor->ne[1]), static_cast<std::uint64_t>(tensor->ne[0])}) {
                mismatches << where + QStringLiteral(": slice has the wrong size or shape");
                continue;
            }
            const auto digest = digestSlice(*slice);
            if (!digest) {
                mismatches << where + QStringLiteral(": ") + QString::fromStdString(digest.error().message);
                continue;
            }
            if (digest->sha256 != expert.sha256) {
                mismatches << where + QStringLiteral(": sha256 differs");
                continue;
            }
            ++m_expertHashes.passed;
            const auto statistics = gguf::computeStatistics(*slice, 16);
            if (!statistics) {
                mismatches << where + QStringLiteral(": statistics failed: ") + QString::fromStdString(statistics.error().message);
                continue;
            }
            compareStatistics(statistics->statistics, *digest, 0, 0, expert.mean, expert.rms, false, where, mismatches);
        }
    }
    QVERIFY(expertTensors > 0);
    QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
}

void TestManifests::splitOpensTheSameModelFromEitherShard()
{
    const QStringList shards = fixtureNames(QString(), QStringLiteral("*-0000?-of-0000?.gguf"));
    QVERIFY2(shards.size() >= 2, "expected the split fixture's shards");
    const auto fromFirst = gguf::Model::open(fixturePath(shards.front()).toStdString());
    QVERIFY2(fromFirst, fromFirst ? "" : fromFirst.error().toString().c_str());
    for (const QString& shard : shards) {
        const auto model = gguf::Model::open(fixturePath(shard).toStdString());
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QCOMPARE(model.value()->shards().size(), fromFirst.value()->shards().size());
        for (std::size_t k = 0; k < model.value()->shards().size(); ++k)
            QCOMPARE(model.value()->shards()[k]->path(), fromFirst.value()->shards()[k]->path());
        QCOMPARE(model.value()->metadata().size(), fromFirst.value()->metadata().size());
        const auto& tensors = model.value()->tensors();
        const auto& reference = fromFirst.value()->tensors();
        QCOMPARE(tensors.size(), reference.size());
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            QCOMPARE(tensors[i].name, reference[i].name);
            QCOMPARE(tensors[i].shard, reference[i].shard);
            QCOMPARE(tensors[i].offset, reference[i].offset);
            QCOMPARE(tensors[i].fileOffset, reference[i].fileOffset);
            QCOMPARE(tensors[i].typeId, reference[i].typeId);
        }
    }
}

QTEST_GUILESS_MAIN(TestManifests)
#include "tst_manifests.moc"
