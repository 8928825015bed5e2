// Every fast path of the core against its plain reference. Above all, every dequantization
// kernel variant this machine supports (scalar, SSE4.1, AVX2, ...), not only the one the type
// table dispatches to, against:
//  - the ggml hashes of every fixture manifest, tensor by tensor and expert by expert;
//  - the scalar kernel on random blocks (every bit pattern, so NaN, infinite and subnormal
//    scales too), at odd lengths, misaligned destinations, and past the size where the SIMD
//    kernels switch to streaming stores, with guard values around the output.
// tst_manifests checks the dispatched kernel through the public API; this suite makes sure a
// variant that only runs on other CPUs cannot be wrong unnoticed. Then the reductions that fuse
// with dequantization (FusedStatistics, HeatmapReducer) against straightforward loops, and the
// row splitting of ParallelRows.

#include "Fixtures.h"
#include "Manifest.h"
#include "ManifestModel.h"
#include "SliceDigest.h"

#include "app/threads/ParallelRows.h"
#include "core/gguf/Dequantize.h"
#include "core/analysis/FusedStatistics.h"
#include "core/types/GgmlType.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/kernels/KernelIsa.h"
#include "core/gguf/ParallelDequantize.h"
#include "core/analysis/Statistics.h"
#include "core/gguf/TensorSlice.h"

#include <QCryptographicHash>
#include <QtTest>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <vector>

using namespace testsupport;

namespace {

QString isaName(gguf::KernelIsa isa)
{
    return QString::fromLatin1(gguf::kernelIsaName(isa));
}

QList<gguf::KernelIsa> supportedIsas()
{
    QList<gguf::KernelIsa> isas;
    for (const gguf::KernelIsa isa : gguf::kAllKernelIsas) {
        if (gguf::kernelIsaSupported(isa))
            isas << isa;
    }
    return isas;
}

gguf::DequantizeBlocksFn kernelOf(const gguf::TypeTraits& type, gguf::KernelIsa isa)
{
    return type.kernels[static_cast<std::size_t>(isa)];
}

// SHA-256 of elements [first, first + count) of `tensor` dequantized by `kernel` in chunks of
// whole blocks (as the manifests hash them: little-endian f32 in storage order). Big-endian
// blocks are copied and swapped first, as the core's dequantizeElements does.
QByteArray digestWith(gguf::DequantizeBlocksFn kernel, const gguf::TensorInfo& tensor, std::uint64_t first, std::uint64_t count)
{
    const gguf::TypeTraits& type = *tensor.traits;
    const std::uint64_t chunkBlocks = std::max<std::uint64_t>(1, (std::uint64_t{1} << 16) / type.blockSize);
    std::vector<float> values(static_cast<std::size_t>(chunkBlocks * type.blockSize));
    std::vector<std::uint8_t> swapped;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const std::uint8_t* src = tensor.data + first / type.blockSize * type.blockBytes;
    for (std::uint64_t done = 0; done < count / type.blockSize;) {
        const std::uint64_t blocks = std::min(chunkBlocks, count / type.blockSize - done);
        const std::uint8_t* chunk = src + done * type.blockBytes;
        if (tensor.bigEndian && type.swapBlock) {
            swapped.assign(chunk, chunk + blocks * type.blockBytes);
            for (std::uint64_t b = 0; b < blocks; ++b)
                type.swapBlock(swapped.data() + b * type.blockBytes);
            chunk = swapped.data();
        }
        kernel(chunk, values.data(), static_cast<std::size_t>(blocks));
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(values.data()), static_cast<qsizetype>(blocks * type.blockSize * sizeof(float))));
        done += blocks;
    }
    return hash.result().toHex();
}

// Random bytes for `blocks` blocks: every field, scales included, takes arbitrary bit patterns.
std::vector<std::uint8_t> randomBlockBytes(const gguf::TypeTraits& type, std::size_t blocks, std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    std::vector<std::uint8_t> bytes(blocks * type.blockBytes);
    for (std::uint8_t& b : bytes)
        b = static_cast<std::uint8_t>(random());
    return bytes;
}

// Compares `count` floats bit for bit. Q4_1 and Q5_1 compute q * d + m: with both d and m NaN,
// which NaN's payload survives the addition depends on the compiler's operand order (ggml's
// too), so there any NaN matches any NaN. Returns the first mismatch, or an empty string.
QString firstDifference(const float* expected, const float* actual, std::size_t count, const gguf::TypeTraits& type)
{
    const bool eitherNan = type.is(gguf::GgmlTypeId::Q4_1) || type.is(gguf::GgmlTypeId::Q5_1);
    for (std::size_t i = 0; i < count; ++i) {
        if (sameBits(expected[i], actual[i]) || (eitherNan && std::isnan(expected[i]) && std::isnan(actual[i])))
            continue;
        return QStringLiteral("element %1: expected %2 (0x%3), got %4 (0x%5)")
            .arg(i)
            .arg(double(expected[i]), 0, 'g', 9)
            .arg(std::bit_cast<std::uint32_t>(expected[i]), 8, 16, QLatin1Char('0'))
            .arg(double(actual[i]), 0, 'g', 9)
            .arg(std::bit_cast<std::uint32_t>(actual[i]), 8, 16, QLatin1Char('0'));
    }
    return {};
}

// Runs `kernel` on `src` into a buffer whose output starts `offsetFloats` past a 64-byte
// boundary, between guard values, and compares with `expected`.
QString runAndCompare(gguf::DequantizeBlocksFn kernel, const gguf::TypeTraits& type, const std::uint8_t* src, std::size_t blocks,
                      const std::vector<float>& expected, std::size_t offsetFloats)
{
    constexpr std::size_t kGuard = 16;
    constexpr float kGuardValue = -12345.5f;
    const std::size_t count = blocks * type.blockSize;
    std::vector<float> buffer(count + offsetFloats + 2 * kGuard + 16, kGuardValue);
    float* base = buffer.data() + kGuard;
    while (reinterpret_cast<std::uintptr_t>(base) % 64 != 0)
        ++base;
    float* out = base + offsetFloats;
    kernel(src, out, blocks);
    for (float* guard = buffer.data(); guard < out; ++guard) {
        if (*guard != kGuardValue)
            return QStringLiteral("wrote before its output");
    }
    for (const float* guard = out + count; guard < buffer.data() + buffer.size(); ++guard) {
        if (*guard != kGuardValue)
            return QStringLiteral("wrote past its output");
    }
    return firstDifference(expected.data(), out, count, type);
}

}  // namespace

class TestKernelVariants : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void dispatchPicksTheBestSupportedVariant();
    void fixtures_data();
    void fixtures();
    void everyVariantMetAFixture();
    void randomBlocks_data() { addTypeRows(); }
    void randomBlocks();
    void streamingPath_data() { addTypeRows(); }
    void streamingPath();
    void fusedStatisticsEdgeCases();
    void fusedStatistics_data() { addManifestRows(); }
    void fusedStatistics();
    void heatmap_data();
    void heatmap();
    void parallelRows();

private:
    static void addTypeRows();
    static void addManifestRows();

    // type id -> variants that matched at least one fixture hash
    std::map<std::uint32_t, QSet<int>> m_verified;
};

void TestKernelVariants::initTestCase()
{
    QVERIFY2(QDir(fixturesDir()).exists(), qPrintable(QStringLiteral("fixtures folder missing: ") + fixturesDir()));
    QVERIFY2(fixtureNames(QString(), QStringLiteral("*.gguf.json")).size() >= 40, "expected the full set of fixture manifests");
    QStringList names;
    for (const gguf::KernelIsa isa : supportedIsas())
        names << isaName(isa);
    qInfo("kernel variants this machine runs: %s (dispatched: %s)", qPrintable(names.join(QStringLiteral(", "))),
          gguf::kernelIsaName(gguf::preferredKernelIsa()));
    QVERIFY(gguf::kernelIsaSupported(gguf::KernelIsa::Scalar));
}

void TestKernelVariants::dispatchPicksTheBestSupportedVariant()
{
    const gguf::KernelIsa preferred = gguf::preferredKernelIsa();
    QVERIFY(gguf::kernelIsaSupported(preferred));
    const bool capped = !qEnvironmentVariableIsEmpty("GGUFX_KERNELS");
    for (const gguf::TypeTraits* type = gguf::typeTableBegin(); type != gguf::typeTableEnd(); ++type) {
        const gguf::KernelIsa active = gguf::activeKernelIsa(*type);
        QVERIFY2(kernelOf(*type, gguf::KernelIsa::Scalar), type->name);
        QVERIFY2(type->dequantize == kernelOf(*type, active), type->name);
        QVERIFY2(active <= preferred && gguf::kernelIsaSupported(active), type->name);
        // Nothing better than the active variant may be available, unless GGUFX_KERNELS caps it.
        for (const gguf::KernelIsa isa : gguf::kAllKernelIsas) {
            if (isa > active && isa <= preferred && kernelOf(*type, isa))
                QFAIL(qPrintable(QStringLiteral("%1 dispatches to %2 although %3 is available").arg(type->name, isaName(active), isaName(isa))));
        }
        QCOMPARE(gguf::findType(type->id), type);
    }
    if (!capped)
        QCOMPARE(preferred, supportedIsas().last());
    for (const gguf::KernelIsa isa : gguf::kAllKernelIsas)
        QCOMPARE(gguf::kernelIsaFromName(gguf::kernelIsaName(isa)), std::optional<gguf::KernelIsa>(isa));
    QVERIFY(!gguf::kernelIsaFromName("avx9"));
}

void TestKernelVariants::fixtures_data()
{
    QTest::addColumn<QString>("manifestPath");
    QTest::addColumn<int>("isa");
    const QStringList names = fixtureNames(QString(), QStringLiteral("*.gguf.json"));
    QVERIFY2(!names.isEmpty() && !supportedIsas().empty(), qPrintable(QStringLiteral("no manifests in ") + fixturesDir()));
    for (const QString& name : names) {
        for (const gguf::KernelIsa isa : supportedIsas())
            QTest::newRow(qPrintable(name + QLatin1Char('@') + isaName(isa))) << fixturePath(name) << static_cast<int>(isa);
    }
}

void TestKernelVariants::fixtures()
{
    QFETCH(QString, manifestPath);
    QFETCH(int, isa);
    QString error;
    const auto manifest = Manifest::load(manifestPath, &error);
    QVERIFY2(manifest, qPrintable(error));
    const auto opened = openManifestModel(*manifest);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());

    QStringList mismatches;
    for (const ManifestTensor& expected : manifest->tensors) {
        const gguf::TensorInfo* tensor = opened->model->findTensor(expected.name.toStdString());
        QVERIFY2(tensor, qPrintable(expected.name));
        const gguf::DequantizeBlocksFn kernel = tensor->traits ? kernelOf(*tensor->traits, static_cast<gguf::KernelIsa>(isa)) : nullptr;
        if (!kernel)
            continue;  // no variant of this type for this instruction set (e.g. i64 has no SIMD kernel)
        const QString what = QStringLiteral("tensor '%1' (%2)").arg(expected.name, expected.type);
        bool allMatched = digestWith(kernel, *tensor, 0, tensor->elementCount()) == expected.sha256;
        if (!allMatched)
            mismatches << what + QStringLiteral(": sha256 differs");
        for (const ManifestExpert& expert : expected.experts) {
            const auto slice = gguf::expertSlice(*tensor, expert.index);
            QVERIFY2(slice, qPrintable(what));
            const std::uint64_t first = slice->firstRow * slice->rowLength();
            if (digestWith(kernel, *tensor, first, slice->elementCount()) != expert.sha256) {
                mismatches << what + QStringLiteral(" expert %1: sha256 differs").arg(expert.index);
                allMatched = false;
            }
        }
        if (allMatched)
            m_verified[tensor->typeId].insert(isa);
    }
    QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
}

// A variant that no fixture exercised would pass vacuously; every type is in the fixtures
// (all-types.gguf, q8-internal-types.gguf), so each variant must have matched at least once.
void TestKernelVariants::everyVariantMetAFixture()
{
    QStringList missing;
    for (const gguf::TypeTraits* type = gguf::typeTableBegin(); type != gguf::typeTableEnd(); ++type) {
        for (const gguf::KernelIsa isa : supportedIsas()) {
            if (kernelOf(*type, isa) && !m_verified[type->id].contains(static_cast<int>(isa)))
                missing << QStringLiteral("%1@%2").arg(type->name, isaName(isa));
        }
    }
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("never matched a fixture hash: ") + missing.join(QStringLiteral(", "))));
}

void TestKernelVariants::addTypeRows()
{
    QTest::addColumn<std::uint32_t>("typeId");
    QTest::addColumn<int>("isa");
    for (const gguf::TypeTraits* type = gguf::typeTableBegin(); type != gguf::typeTableEnd(); ++type) {
        for (const gguf::KernelIsa isa : supportedIsas()) {
            if (isa != gguf::KernelIsa::Scalar && kernelOf(*type, isa))
                QTest::newRow(qPrintable(QStringLiteral("%1@%2").arg(type->name, isaName(isa)))) << type->id << static_cast<int>(isa);
        }
    }
}

void TestKernelVariants::randomBlocks()
{
    QFETCH(std::uint32_t, typeId);
    QFETCH(int, isa);
    const gguf::TypeTraits& type = *gguf::findType(typeId);
    const gguf::DequantizeBlocksFn scalar = kernelOf(type, gguf::KernelIsa::Scalar);
    const gguf::DequantizeBlocksFn variant = kernelOf(type, static_cast<gguf::KernelIsa>(isa));

    // Block counts around the vector widths (plain types: 8 elements per step, so 7/8/9 and
    // odd tails), and destinations at every float offset of a 32-byte vector.
    const std::size_t counts[] = {1, 2, 3, 7, 8, 9, 15, 17, 64, 257, 1001};
    const std::vector<std::uint8_t> src = randomBlockBytes(type, 1001, typeId * 7919u + 1);
    for (const std::size_t blocks : counts) {
        std::vector<float> expected(blocks * type.blockSize);
        scalar(src.data(), expected.data(), blocks);
        for (std::size_t offset = 0; offset < 8; offset += (blocks < 16 ? 1 : 3)) {
            const QString problem = runAndCompare(variant, type, src.data(), blocks, expected, offset);
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1 blocks at float offset %2: %3").arg(blocks).arg(offset).arg(problem)));
        }
    }
}

void TestKernelVariants::streamingPath()
{
    QFETCH(std::uint32_t, typeId);
    QFETCH(int, isa);
    const gguf::TypeTraits& type = *gguf::findType(typeId);
    const gguf::DequantizeBlocksFn scalar = kernelOf(type, gguf::KernelIsa::Scalar);
    const gguf::DequantizeBlocksFn variant = kernelOf(type, static_cast<gguf::KernelIsa>(isa));

    // A little over the size where SIMD kernels stream their output, and not a whole number of
    // their 16 KiB stages.
    const std::size_t blocks = (gguf::kKernelStreamingBytes / sizeof(float) + 3 * 4096 + 768) / type.blockSize + 1;
    const std::vector<std::uint8_t> src = randomBlockBytes(type, blocks, typeId * 104729u + 5);
    std::vector<float> expected(blocks * type.blockSize);
    scalar(src.data(), expected.data(), blocks);
    for (const std::size_t offset : {0, 3}) {
        const QString problem = runAndCompare(variant, type, src.data(), blocks, expected, offset);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1 blocks at float offset %2: %3").arg(blocks).arg(offset).arg(problem)));
    }
}

// ---- fused reductions and row splitting --------------------------------------------------

namespace {

bool sameDouble(double a, double b)
{
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

// Every value of a slice, dequantized by the dispatched kernel.
std::vector<float> sliceValues(const gguf::TensorSlice& slice)
{
    std::vector<float> values(static_cast<std::size_t>(slice.elementCount()));
    const std::uint64_t first = slice.firstRow * slice.rowLength();
    const gguf::Status status = gguf::dequantizeElements(*slice.tensor, first, first + slice.elementCount(), values);
    return status ? values : std::vector<float>{};
}

// The heatmap contract (HeatmapReducer.h) evaluated the obvious way, cell by cell.
float referenceCell(const std::vector<float>& values, std::uint64_t rowLength, const gguf::HeatmapGrid& grid, std::uint32_t row, std::uint32_t column)
{
    const gguf::HeatmapRegion& r = grid.region;
    double sum = 0;
    std::uint64_t count = 0;
    float low = INFINITY, high = -INFINITY, absHigh = 0;
    bool sawNan = false;
    for (std::uint64_t y = gguf::heatmapCellStart(r.rowBegin, r.rowEnd, grid.rows, row); y < gguf::heatmapCellStart(r.rowBegin, r.rowEnd, grid.rows, row + 1); ++y) {
        for (std::uint64_t x = gguf::heatmapCellStart(r.columnBegin, r.columnEnd, grid.columns, column);
             x < gguf::heatmapCellStart(r.columnBegin, r.columnEnd, grid.columns, column + 1); ++x) {
            const float v = values[static_cast<std::size_t>(y * rowLength + x)];
            if (std::isnan(v)) {
                sawNan = true;
                continue;
            }
            sum += v, ++count, low = std::min(low, v), high = std::max(high, v), absHigh = std::max(absHigh, std::fabs(v));
        }
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    switch (grid.aggregate) {
    case gguf::CellAggregate::Mean: return sawNan || count == 0 ? nan : static_cast<float>(sum / double(count));
    case gguf::CellAggregate::AbsMax: return count == 0 ? nan : absHigh;
    case gguf::CellAggregate::Min: return sawNan || count == 0 ? nan : low;
    case gguf::CellAggregate::Max: return sawNan || count == 0 ? nan : high;
    }
    return nan;
}

}  // namespace

void TestKernelVariants::addManifestRows()
{
    QTest::addColumn<QString>("manifestPath");
    for (const QString& name : fixtureNames(QString(), QStringLiteral("*.gguf.json")))
        QTest::newRow(qPrintable(name)) << fixturePath(name);
}

bool sameStatistics(const gguf::Statistics& a, const gguf::Statistics& b)
{
    return a.count == b.count && a.finiteCount == b.finiteCount && a.zeroCount == b.zeroCount && a.nanCount == b.nanCount
        && a.infCount == b.infCount && sameDouble(a.min, b.min) && sameDouble(a.max, b.max) && sameDouble(a.mean, b.mean)
        && sameDouble(a.stddev, b.stddev) && sameDouble(a.rms, b.rms);
}

// Bit for bit what StatisticsAccumulator gives (FusedStatistics.h promises it): on edge cases the
// fixtures lack (zero extremes keep the first zero's sign; no finite value), then on the fixtures.
void TestKernelVariants::fusedStatisticsEdgeCases()
{
    const float inf = INFINITY;
    const float nan = NAN;
    const std::vector<std::vector<float>> edgeCases = {
        {-1.f, -0.f, 0.f, -2.f}, {-1.f, 0.f, -0.f}, {1.f, 0.f, -0.f, 2.f}, {1.f, -0.f, 0.f}, {nan, inf, -inf}, {}, {-0.f, nan, 3.f, -inf}};
    for (const std::vector<float>& values : edgeCases) {
        gguf::StatisticsAccumulator reference;
        gguf::FusedStatisticsAccumulator fused;
        for (std::size_t i = 0; i < values.size(); ++i) {  // one value per call: chunk joins too
            reference.add(std::span(values).subspan(i, 1));
            fused.add(std::span(values).subspan(i, 1));
        }
        QVERIFY2(sameStatistics(fused.result(), reference.result()), qPrintable(QStringLiteral("edge case %1").arg(&values - edgeCases.data())));
    }
}

void TestKernelVariants::fusedStatistics()
{
    QFETCH(QString, manifestPath);
    QString error;
    const auto manifest = Manifest::load(manifestPath, &error);
    QVERIFY2(manifest, qPrintable(error));
    const auto opened = openManifestModel(*manifest);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    for (const gguf::TensorInfo* tensor : opened->tensors) {
        if (!tensor->traits)
            continue;
        const gguf::TensorSlice slice = gguf::wholeTensor(*tensor);
        gguf::StatisticsAccumulator reference;
        reference.add(sliceValues(slice));
        const gguf::Statistics expected = reference.result();
        const auto fused = gguf::fusedStatistics(slice);
        QVERIFY2(fused, qPrintable(QString::fromUtf8(tensor->name.data(), qsizetype(tensor->name.size()))));
        QVERIFY2(sameStatistics(*fused, expected), qPrintable(QStringLiteral("tensor %1: fused statistics differ").arg(QString::fromUtf8(tensor->name.data(), qsizetype(tensor->name.size())))));
    }
}

void TestKernelVariants::heatmap_data()
{
    // f16_all_bits holds every f16 pattern: NaN rows, infinities, signed zeros.
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("tensorName");
    QTest::newRow("q4_K experts") << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("blk.0.ffn_up_exps.weight");
    QTest::newRow("f16 all bits") << QStringLiteral("f16-bf16-all-bits.gguf") << QStringLiteral("f16_all_bits");
    QTest::newRow("iq2_xxs") << QStringLiteral("all-types.gguf") << QStringLiteral("iq2_xxs");
}

void TestKernelVariants::heatmap()
{
    QFETCH(QString, file);
    QFETCH(QString, tensorName);
    const auto model = gguf::Model::open(fixturePath(file).toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    const gguf::TensorInfo* tensor = model.value()->findTensor(tensorName.toStdString());
    QVERIFY(tensor);
    const gguf::TensorSlice slice = gguf::wholeTensor(*tensor);
    const std::vector<float> values = sliceValues(slice);
    QCOMPARE(values.size(), static_cast<std::size_t>(slice.elementCount()));
    const std::uint64_t rows = slice.rowCount;
    const std::uint64_t columns = slice.rowLength();
    // Whole and partial regions; grids coarser than, equal to and finer than the region.
    const gguf::HeatmapRegion regions[] = {{0, rows, 0, columns}, {1, rows - 2, 5, columns - 3}};
    const std::pair<std::uint32_t, std::uint32_t> sizes[] = {{7, 5}, {37, 61}, {static_cast<std::uint32_t>(rows), 1}, {2000, 3000}};
    for (const gguf::HeatmapRegion& region : regions) {
        for (const auto& [gridRows, gridColumns] : sizes) {
            for (const gguf::CellAggregate aggregate : {gguf::CellAggregate::Mean, gguf::CellAggregate::AbsMax, gguf::CellAggregate::Min, gguf::CellAggregate::Max}) {
                const gguf::HeatmapGrid grid{region, gridRows, gridColumns, aggregate};
                const std::uint32_t half = gridRows / 2;  // two calls, as threads would make them
                std::vector<float> cells(std::size_t{gridRows} * gridColumns);
                QVERIFY(gguf::reduceHeatmapRows(slice, grid, 0, half, std::span(cells).first(std::size_t{half} * gridColumns)));
                QVERIFY(gguf::reduceHeatmapRows(slice, grid, half, gridRows, std::span(cells).subspan(std::size_t{half} * gridColumns)));
                for (std::uint32_t r = 0; r < gridRows; ++r) {
                    for (std::uint32_t c = 0; c < gridColumns; ++c) {
                        const float expected = referenceCell(values, columns, grid, r, c);
                        if (!sameBits(cells[std::size_t{r} * gridColumns + c], expected))
                            QFAIL(qPrintable(QStringLiteral("%1x%2 grid, aggregate %3, cell (%4, %5): %6, expected %7")
                                                 .arg(gridRows).arg(gridColumns).arg(int(aggregate)).arg(r).arg(c)
                                                 .arg(double(cells[std::size_t{r} * gridColumns + c])).arg(double(expected))));
                    }
                }
            }
        }
    }
}

void TestKernelVariants::parallelRows()
{
    // Planning: contiguous, covering, sizes within one of each other.
    for (const auto& [begin, end, parts] : {std::tuple{0ull, 10ull, 3ull}, {5ull, 6ull, 4ull}, {7ull, 1007ull, 7ull}, {3ull, 3ull, 2ull}}) {
        const std::vector<gguf::RowRange> ranges = gguf::planRowRanges(begin, end, parts);
        QCOMPARE(ranges.size(), static_cast<std::size_t>(std::min(parts, end - begin)));
        std::uint64_t at = begin;
        for (const gguf::RowRange& range : ranges) {
            QCOMPARE(range.begin, at);
            QVERIFY(range.size() == (end - begin) / ranges.size() || range.size() == (end - begin) / ranges.size() + 1);
            at = range.end;
        }
        QCOMPARE(at, ranges.empty() ? begin : end);
    }
    QCOMPARE(gguf::fixedRowRanges(2, 9, 3), (std::vector<gguf::RowRange>{{2, 5}, {5, 8}, {8, 9}}));

    // Every task exactly once, also from a nested run inside a task.
    gguf::ParallelRows pool(3);
    QCOMPARE(pool.threadCount(), 3u);
    std::vector<std::atomic<int>> runs(1000);
    pool.run(runs.size(), [&](std::size_t task) {
        runs[task]++;
        if (task == 17)
            pool.run(4, [&](std::size_t inner) { runs[996 + inner] += 10; });
    });
    for (std::size_t i = 0; i < runs.size(); ++i)
        QCOMPARE(runs[i].load(), i >= 996 ? 11 : 1);

    // dequantizeRowsParallel: the same floats as one dequantizeRows call, and the same errors.
    const auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")).toStdString());
    QVERIFY(model);
    const gguf::TensorInfo& tensor = *model.value()->findTensor("blk.1.ffn_down_exps.weight");
    const auto rowLength = static_cast<std::size_t>(tensor.ne[0]);
    std::vector<float> serial(rowLength * 1001), parallel(serial.size());
    QVERIFY(gguf::dequantizeRows(tensor, 13, 1014, serial));
    QVERIFY(gguf::dequantizeRowsParallel(tensor, 13, 1014, parallel, &pool));
    QVERIFY(std::memcmp(serial.data(), parallel.data(), serial.size() * sizeof(float)) == 0);
    QVERIFY(!gguf::dequantizeRowsParallel(tensor, 0, tensor.rowCount() + 1, parallel, &pool));
}

QTEST_GUILESS_MAIN(TestKernelVariants)
#include "tst_kernel_variants.moc"
