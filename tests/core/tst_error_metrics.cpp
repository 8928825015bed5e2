// Error metrics and the model comparison. Metrics are checked against figures computed here
// independently (long double sums, percentiles by sorting, NumPy's "linear" definition);
// comparing tiny-llama-F32 with ggml's tiny-llama-<TYPE> must give exactly the figures of comparing
// it with its own in-memory quantization; mismatched models are reported, not skipped.

#include "TestPools.h"
#include "core/gguf/Dequantize.h"
#include "core/compare/ErrorMetrics.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/write/GgufWriter.h"
#include "core/gguf/Model.h"
#include "core/compare/ModelComparison.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/quantize/Quantize.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <thread>

using namespace gguf;

using testsupport::openFixtureModel;

namespace {

struct Expected {
    std::uint64_t count = 0, nonFinite = 0;
    double rmse = 0, maxAbs = 0, meanAbs = 0, relative = 0, sqnr = 0, cosine = 0;
    std::vector<double> sortedAbs;

    double percentile(double q) const
    {
        const double rank = q * double(sortedAbs.size() - 1);
        const auto k = std::size_t(rank);
        const double low = sortedAbs[k];
        return k + 1 < sortedAbs.size() ? low + (rank - double(k)) * (sortedAbs[k + 1] - low) : low;
    }
};

// The definitions, written out plainly.
Expected computeExpected(const std::vector<float>& reference, const std::vector<float>& other)
{
    Expected e;
    long double sq = 0, abs = 0, refSq = 0, otherSq = 0, dot = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        if (!std::isfinite(reference[i]) || !std::isfinite(other[i])) {
            ++e.nonFinite;
            continue;
        }
        const long double d = (long double)other[i] - (long double)reference[i];
        ++e.count;
        sq += d * d;
        abs += std::fabs(d);
        e.maxAbs = std::max(e.maxAbs, double(std::fabs(d)));
        refSq += (long double)reference[i] * reference[i];
        otherSq += (long double)other[i] * other[i];
        dot += (long double)reference[i] * other[i];
        e.sortedAbs.push_back(double(std::fabs(d)));
    }
    std::sort(e.sortedAbs.begin(), e.sortedAbs.end());
    e.rmse = double(std::sqrt(sq / e.count));
    e.meanAbs = double(abs / e.count);
    e.relative = double(std::sqrt(sq / refSq));
    e.sqnr = double(10 * std::log10(refSq / sq));
    e.cosine = double(dot / std::sqrt(refSq * otherSq));
    return e;
}

bool close(double actual, double expected, double relative)
{
    if (std::isinf(expected) || std::isnan(expected))
        return std::isinf(expected) ? actual == expected : std::isnan(actual);
    return std::abs(actual - expected) <= relative * std::abs(expected) + 1e-300;
}

// Same value, NaN equal to NaN: the "exactly equal" comparisons below.
bool same(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

ComparisonRunOptions runOptions(unsigned threads, std::uint64_t chunkElements)
{
    ComparisonRunOptions options;
    options.executor = &testsupport::poolOf(threads);
    options.chunkElements = chunkElements;
    return options;
}

ComparisonOptions simulating(std::uint32_t type)
{
    ComparisonOptions options;
    options.simulatedTypes = {type};
    return options;
}

}  // namespace

class ErrorMetricsTest : public QObject {
    Q_OBJECT

private slots:
    void metricsMatchDefinitions_data();
    void metricsMatchDefinitions();
    void degenerateCases();
    void percentilesWithinBinPrecision();
    void mergeMatchesSinglePass();
    void fileEqualsSimulation_data();
    void fileEqualsSimulation();
    void streamingEqualsWholeTensor();
    void oneTensorSplitsAcrossThreads();
    void oneLargeTensorAnyThreadsBitIdentical_data();
    void oneLargeTensorAnyThreadsBitIdentical();
    void mismatchesReported();
    void referenceDefaultsToMostPrecise();
    void cancelStops();
    void tensorNamesSplit();
};

void ErrorMetricsTest::metricsMatchDefinitions_data()
{
    QTest::addColumn<std::vector<float>>("reference");
    QTest::addColumn<std::vector<float>>("other");
    QTest::newRow("four values") << std::vector<float>{1.0f, -2.0f, 3.0f, 0.5f} << std::vector<float>{1.1f, -2.0f, 2.5f, 0.5f};
    QTest::newRow("with NaN and Inf") << std::vector<float>{1.0f, NAN, 3.0f, 2.0f, -1.0f}
                                      << std::vector<float>{1.5f, 1.0f, INFINITY, 2.25f, -0.75f};
    std::mt19937 random(42);
    std::normal_distribution<float> weight(0.0f, 0.02f);
    std::normal_distribution<float> noise(0.0f, 0.002f);
    std::vector<float> reference(4096), other(4096);
    for (std::size_t i = 0; i < reference.size(); ++i) {
        reference[i] = weight(random);
        other[i] = reference[i] + noise(random);
    }
    QTest::newRow("4096 gaussian") << reference << other;
}

void ErrorMetricsTest::metricsMatchDefinitions()
{
    QFETCH(std::vector<float>, reference);
    QFETCH(std::vector<float>, other);
    const Expected e = computeExpected(reference, other);
    ErrorAccumulator accumulator;
    accumulator.add(reference, other);
    const ErrorMetrics m = accumulator.result();
    QCOMPARE(m.count, e.count);
    QCOMPARE(m.nonFiniteCount, e.nonFinite);
    QVERIFY2(close(m.rmse, e.rmse, 1e-12), qPrintable(QString::number(m.rmse - e.rmse)));
    QCOMPARE(m.maxAbsError, e.maxAbs);
    QVERIFY(close(m.meanAbsError, e.meanAbs, 1e-12));
    QVERIFY(close(m.relativeRmse, e.relative, 1e-12));
    QVERIFY(close(m.sqnrDb, e.sqnr, 1e-12));
    QVERIFY(close(m.cosineSimilarity, e.cosine, 1e-12));
    QVERIFY2(close(m.p50AbsError, e.percentile(0.50), 0.008), qPrintable(QStringLiteral("%1 vs %2").arg(m.p50AbsError).arg(e.percentile(0.5))));
    QVERIFY(close(m.p95AbsError, e.percentile(0.95), 0.008));
    QVERIFY(close(m.p99AbsError, e.percentile(0.99), 0.008));
}

void ErrorMetricsTest::degenerateCases()
{
    const std::vector<float> values{0.5f, -1.0f, 0.0f, 2.0f};
    ErrorAccumulator identical;
    identical.add(values, values);
    ErrorMetrics m = identical.result();
    QCOMPARE(m.rmse, 0.0);
    QCOMPARE(m.relativeRmse, 0.0);
    QCOMPARE(m.sqnrDb, std::numeric_limits<double>::infinity());
    QCOMPARE(m.cosineSimilarity, 1.0);
    QCOMPARE(m.p50AbsError, 0.0);  // zeros are exact, not a bin estimate
    QCOMPARE(m.p99AbsError, 0.0);

    const std::vector<float> zeros(4, 0.0f);
    ErrorAccumulator fromZero;
    fromZero.add(zeros, values);
    m = fromZero.result();
    QCOMPARE(m.relativeRmse, std::numeric_limits<double>::infinity());
    QCOMPARE(m.sqnrDb, -std::numeric_limits<double>::infinity());
    QCOMPARE(m.cosineSimilarity, 0.0);

    ErrorAccumulator bothZero;
    bothZero.add(zeros, zeros);
    QCOMPARE(bothZero.result().cosineSimilarity, 1.0);

    ErrorAccumulator empty;
    QVERIFY(std::isnan(empty.result().rmse));
    QVERIFY(std::isnan(empty.result().p50AbsError));
    QCOMPARE(empty.result().count, std::uint64_t(0));
}

// |error| spread log-uniformly over 30 octaves: every quantile within one bin (2^-7) of the
// exact NumPy-style value.
void ErrorMetricsTest::percentilesWithinBinPrecision()
{
    std::mt19937 random(7);
    std::uniform_real_distribution<double> exponent(-30.0, 0.0);
    std::vector<float> reference(100001, 0.0f), other(reference.size());
    for (float& v : other)
        v = float(std::exp2(exponent(random)));
    const Expected e = computeExpected(reference, other);
    ErrorAccumulator accumulator;
    accumulator.add(reference, other);
    for (int percent = 0; percent <= 100; ++percent) {
        const double q = percent / 100.0;
        const double ours = accumulator.histogram().quantile(q);
        QVERIFY2(close(ours, e.percentile(q), 1.0 / 128), qPrintable(QStringLiteral("q=%1: %2 vs %3").arg(q).arg(ours).arg(e.percentile(q))));
    }
}

void ErrorMetricsTest::mergeMatchesSinglePass()
{
    std::mt19937 random(3);
    std::normal_distribution<float> value(0.0f, 1.0f);
    std::vector<float> reference(10000), other(10000);
    for (std::size_t i = 0; i < reference.size(); ++i)
        reference[i] = value(random), other[i] = reference[i] + 0.01f * value(random);
    ErrorAccumulator whole;
    whole.add(reference, other);
    ErrorAccumulator merged;
    for (std::size_t begin = 0; begin < reference.size(); begin += 3333) {
        const std::size_t n = std::min<std::size_t>(3333, reference.size() - begin);
        ErrorAccumulator part;
        part.add(std::span(reference).subspan(begin, n), std::span(other).subspan(begin, n));
        merged.merge(part);
    }
    const ErrorMetrics a = whole.result();
    const ErrorMetrics b = merged.result();
    QCOMPARE(a.count, b.count);
    QCOMPARE(a.maxAbsError, b.maxAbsError);
    QVERIFY(close(a.rmse, b.rmse, 1e-13));
    QVERIFY(close(a.cosineSimilarity, b.cosineSimilarity, 1e-13));
    QCOMPARE(a.p50AbsError, b.p50AbsError);  // integer bin counts: merging is exact
    QCOMPARE(a.p99AbsError, b.p99AbsError);
}

void ErrorMetricsTest::fileEqualsSimulation_data()
{
    QTest::addColumn<QString>("type");
    for (const char* type : {"Q2_K", "Q4_K", "Q8_0", "Q5_1", "Q6_K"})
        QTest::newRow(type) << QString::fromLatin1(type);
}

// F32 vs ggml's file and F32 vs its in-memory quantization, side by side in one comparison:
// every figure of every tensor identical, and independent of the thread count.
void ErrorMetricsTest::fileEqualsSimulation()
{
    QFETCH(QString, type);
    const auto reference = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    const auto quantized = openFixtureModel(QStringLiteral("tiny-llama-%1.gguf").arg(type));
    QVERIFY(reference && quantized);
    const auto comparison = ModelComparison::create({reference, quantized}, simulating(findTypeByName(type.toStdString())->id));
    QVERIFY(comparison);
    QCOMPARE(comparison->referenceIndex(), std::size_t(0));
    QCOMPARE(comparison->rows().size(), std::size_t(21));
    const auto parallel = runComparison(*comparison, runOptions(2, 10000));
    const auto serial = runComparison(*comparison, runOptions(1, 10000));
    QVERIFY(parallel && serial);
    int quantizedRows = 0;
    for (std::size_t r = 0; r < comparison->rows().size(); ++r) {
        const ComparisonRow& row = comparison->rows()[r];
        QVERIFY(row.cells[0].ok() && row.cells[1].ok());
        QCOMPARE(row.cells[1].typeId, row.cells[0].typeId);
        QCOMPARE(row.cells[1].quantizedInMemory, row.reference->nDims >= 2);
        quantizedRows += row.cells[1].quantizedInMemory;
        const std::vector<double> file = errorMetricValues(*parallel->cells[r][0]);
        const std::vector<double> simulated = errorMetricValues(*parallel->cells[r][1]);
        const std::vector<double> single = errorMetricValues(*serial->cells[r][1]);
        for (std::size_t i = 0; i < file.size(); ++i) {
            QVERIFY2(same(file[i], simulated[i]), qPrintable(QStringLiteral("%1 %2: %3 vs %4").arg(QLatin1String(row.reference->name),
                                                   QString::fromStdString(errorMetricNames()[i])).arg(file[i]).arg(simulated[i])));
            QVERIFY(same(simulated[i], single[i]));
        }
        if (row.reference->nDims >= 2)
            QVERIFY(parallel->cells[r][0]->rmse > 0.0);
        else
            QCOMPARE(parallel->cells[r][0]->rmse, 0.0);  // norms are F32 in every file
    }
    QCOMPARE(quantizedRows, 16);
    const std::vector<double> fileTotals = errorMetricValues(parallel->columnTotals[0]);
    const std::vector<double> simulatedTotals = errorMetricValues(parallel->columnTotals[1]);
    for (std::size_t i = 0; i < fileTotals.size(); ++i)
        QVERIFY(same(fileTotals[i], simulatedTotals[i]));
    qInfo("%s: total rmse %.6g, sqnr %.2f dB", qPrintable(type), parallel->columnTotals[0].rmse, parallel->columnTotals[0].sqnrDb);
}

// One tensor, two threads: both threads work on it (`compare --threads 2` on a
// one-tensor file once ran on one), and the figures are bit-identical to one thread's.
// No sleep decides it: the simulation's quantizer (the seam importance-aware simulation runs
// every range through, outside the engine's lock) holds the first thread at its first range
// until a second thread has reached a range of the same tensor. A run on one thread never
// brings a second one, and fails when the guard below expires.
void ErrorMetricsTest::oneTensorSplitsAcrossThreads()
{
    const auto reference = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
    QVERIFY(reference);
    auto loaded = ImportanceMatrix::load(testsupport::fixturePath(QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf")).toStdString());
    QVERIFY(loaded);
    auto matrix = std::make_shared<ImportanceMatrix>(std::move(loaded.value()));
    validateImatrix(*matrix, *reference);

    struct Rendezvous {
        std::mutex mutex;
        std::condition_variable arrived;
        std::set<std::thread::id> threads;
    } rendezvous;
    ComparisonOptions options = simulating(findTypeByName("q4_K")->id);
    options.includeTensor = [](std::string_view name) { return name == "blk.0.attn_q.weight"; };
    options.importance = matrix;
    options.quantizer = [&rendezvous](std::uint32_t type, std::span<const float> values, std::int64_t, std::span<const float>,
                                      std::span<std::uint8_t> out) -> Status {
        std::unique_lock lock(rendezvous.mutex);
        rendezvous.threads.insert(std::this_thread::get_id());
        rendezvous.arrived.notify_all();
        // Only a failing engine waits this long: a second thread arrives within its first range.
        rendezvous.arrived.wait_for(lock, std::chrono::seconds(30), [&] { return rendezvous.threads.size() >= 2; });
        lock.unlock();
        return quantizeValues(type, values, out);
    };
    const auto comparison = ModelComparison::create({reference}, options);
    QVERIFY(comparison);
    QCOMPARE(comparison->rows().size(), std::size_t(1));
    QVERIFY(comparison->cellRanges(0, 0, 2048).size() >= 16);

    const auto parallel = runComparison(*comparison, runOptions(2, 2048));
    QVERIFY(parallel);
    QCOMPARE(rendezvous.threads.size(), std::size_t(2));
    // One thread alone: the same quantizer, which now lets every range through at once.
    const auto serial = runComparison(*comparison, runOptions(1, 2048));
    QVERIFY(serial);
    const std::vector<double> a = errorMetricValues(*parallel->cells[0][0]);
    const std::vector<double> b = errorMetricValues(*serial->cells[0][0]);
    for (std::size_t i = 0; i < a.size(); ++i)
        QVERIFY(same(a[i], b[i]));
}

void ErrorMetricsTest::oneLargeTensorAnyThreadsBitIdentical_data()
{
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<quint64>("chunkElements");
    QTest::newRow("2 threads, one row per range") << 2u << quint64(256);
    QTest::newRow("3 threads, odd range size") << 3u << quint64(256 * 7);
    QTest::newRow("8 threads, one row per range") << 8u << quint64(256);
}

// The largest tensor of the fixtures (token_embd, 131072 values) against the Q4_K file and two
// simulated types, cut into hundreds of ranges spread over several threads: every figure of every
// cell and of the column totals equals one thread's bit for bit (percentiles included).
void ErrorMetricsTest::oneLargeTensorAnyThreadsBitIdentical()
{
    QFETCH(unsigned, threads);
    QFETCH(quint64, chunkElements);
    const auto reference = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    const auto quantized = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(reference && quantized);
    ComparisonOptions options;
    options.simulatedTypes = {findTypeByName("q4_K")->id, findTypeByName("q3_K")->id};
    options.includeTensor = [](std::string_view name) { return name == "token_embd.weight"; };
    const auto comparison = ModelComparison::create({reference, quantized}, options);
    QVERIFY(comparison);
    QCOMPARE(comparison->rows().size(), std::size_t(1));
    QCOMPARE(comparison->columns().size(), std::size_t(3));
    QVERIFY(comparison->cellRanges(0, 0, chunkElements).size() >= 64);

    const auto serial = runComparison(*comparison, runOptions(1, chunkElements));
    const auto parallel = runComparison(*comparison, runOptions(threads, chunkElements));
    QVERIFY(serial && parallel);
    const auto bits = [](const ErrorMetrics& metrics) {
        std::vector<std::uint64_t> out;
        for (const double value : errorMetricValues(metrics))
            out.push_back(std::bit_cast<std::uint64_t>(value));
        return out;
    };
    for (std::size_t c = 0; c < comparison->columns().size(); ++c) {
        QVERIFY(serial->cells[0][c] && parallel->cells[0][c]);
        QCOMPARE(bits(*parallel->cells[0][c]), bits(*serial->cells[0][c]));
        QCOMPARE(bits(parallel->columnTotals[c]), bits(serial->columnTotals[c]));
        QCOMPARE(parallel->cells[0][c]->count, std::uint64_t(131072));
    }
}

// Chunked, threaded figures equal one ErrorAccumulator fed the two whole tensors.
void ErrorMetricsTest::streamingEqualsWholeTensor()
{
    const auto reference = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    const auto quantized = openFixtureModel(QStringLiteral("tiny-llama-Q2_K.gguf"));
    const auto comparison = ModelComparison::create({reference, quantized}, {});
    QVERIFY(comparison);
    const auto results = runComparison(*comparison, runOptions(2, 777));
    QVERIFY(results);
    for (std::size_t r = 0; r < comparison->rows().size(); ++r) {
        const TensorInfo& a = *comparison->rows()[r].reference;
        const TensorInfo& b = *comparison->rows()[r].cells[0].tensor;
        std::vector<float> x(a.elementCount()), y(b.elementCount());
        QVERIFY(dequantizeRows(a, 0, a.rowCount(), x) && dequantizeRows(b, 0, b.rowCount(), y));
        ErrorAccumulator whole;
        whole.add(x, y);
        const std::vector<double> expected = errorMetricValues(whole.result());
        const std::vector<double> actual = errorMetricValues(*results->cells[r][0]);
        for (std::size_t i = 0; i < expected.size(); ++i)
            QVERIFY(same(expected[i], actual[i]));
    }
}

// A model with one tensor of another shape and the rest missing; the reports name them.
void ErrorMetricsTest::mismatchesReported()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("other.gguf")).toStdString();
    GgufWriter writer;
    writer.setValue("general.architecture", EncodedValue::string("mamba"));
    const auto zeros = [](std::uint64_t bytes) {
        return [bytes](ByteSink& out) { return out.write(std::vector<char>(bytes).data(), bytes); };
    };
    QVERIFY(writer.addTensor({"token_embd.weight", 0, {256, 256}}, zeros(256 * 256 * 4)));
    QVERIFY(writer.addTensor({"extra.weight", 0, {32}}, zeros(32 * 4)));
    QVERIFY(writer.writeFile(path));
    const auto other = Model::open(path);
    QVERIFY(other);

    const auto comparison = ModelComparison::create({openFixtureModel(QStringLiteral("tiny-llama-F32.gguf")), *other}, {});
    QVERIFY(comparison);
    const ComparisonRow& embedding = comparison->rows()[0];
    QCOMPARE(embedding.cells[0].status, CellStatus::ShapeMismatch);
    QVERIFY(QString::fromStdString(embedding.cells[0].problem).contains(QLatin1String("[256, 256] in other.gguf")));
    QCOMPARE(comparison->rows()[1].cells[0].status, CellStatus::Missing);
    const QStringList problems = [&] {
        QStringList list;
        for (const std::string& p : comparison->problems())
            list << QString::fromStdString(p);
        return list;
    }();
    QCOMPARE(problems.size(), 4);
    QVERIFY(problems[0].contains(QLatin1String("architecture 'mamba'")));
    QVERIFY(problems[1].contains(QLatin1String("1 tensor(s) not in the reference: extra.weight")));
    QVERIFY(problems[2].contains(QLatin1String("20 of the reference's tensors missing")));
    QVERIFY(problems[3].contains(QLatin1String("1 tensor(s) with another shape")));
    const auto results = runComparison(*comparison);
    QVERIFY(results);
    QCOMPARE(results->columnTensorCounts[0], std::size_t(0));
    QVERIFY(!results->cells[0][0]);
}

void ErrorMetricsTest::referenceDefaultsToMostPrecise()
{
    const auto q4 = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    const auto f16 = openFixtureModel(QStringLiteral("tiny-llama-F16.gguf"));
    const auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    const auto comparison = ModelComparison::create({q4, f16, f32}, {});
    QVERIFY(comparison);
    QCOMPARE(comparison->referenceIndex(), std::size_t(2));
    QCOMPARE(comparison->columns().size(), std::size_t(2));
    QCOMPARE(comparison->columns()[0].label, std::string("tiny-llama-Q4_K.gguf"));
    QVERIFY(!ModelComparison::create({f32}, {}));                          // nothing to compare with
    QVERIFY(!ModelComparison::create({f32}, simulating(16)));  // iq2_xxs: no quantizer
    ComparisonOptions outOfRange;
    outOfRange.referenceIndex = 2;
    QVERIFY(!ModelComparison::create({f32, q4}, outOfRange));
}

void ErrorMetricsTest::cancelStops()
{
    const auto comparison = ModelComparison::create({openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"))}, simulating(12));
    QVERIFY(comparison);
    std::atomic<bool> cancel{false};
    std::uint64_t lastDone = 0;
    ComparisonRunOptions options = runOptions(1, 4096);
    options.cancel = &cancel;
    options.progress = [&](std::uint64_t done, std::uint64_t) {
        lastDone = done;
        cancel = done >= 20000;
    };
    const auto results = runComparison(*comparison, options);
    QVERIFY(!results);
    QVERIFY(QString::fromStdString(results.error().message).contains(QLatin1String("cancelled")));
    QVERIFY(lastDone >= 20000 && lastDone < 100000);
}

void ErrorMetricsTest::tensorNamesSplit()
{
    QCOMPARE(splitTensorName("blk.12.attn_q.weight").layer, std::optional<std::uint32_t>(12));
    QCOMPARE(splitTensorName("blk.12.attn_q.weight").kind, std::string("attn_q"));
    QCOMPARE(splitTensorName("blk.0.ffn_down_exps.weight").kind, std::string("ffn_down_exps"));
    QCOMPARE(splitTensorName("blk.3.attn_q.bias").kind, std::string("attn_q.bias"));
    QVERIFY(!splitTensorName("token_embd.weight").layer);
    QCOMPARE(splitTensorName("token_embd.weight").kind, std::string("token_embd"));
    QVERIFY(!splitTensorName("blk.x.attn_q.weight").layer);
}

QTEST_GUILESS_MAIN(ErrorMetricsTest)
#include "tst_error_metrics.moc"
