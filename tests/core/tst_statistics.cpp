// StatisticsAccumulator and Histogram on small hand-made arrays whose expected values are worked
// out here independently (two-pass formulas, counted by hand), plus computeStatistics on a fixture
// tensor with a known arithmetic sequence.

#include "Fixtures.h"
#include "core/gguf/GgufFile.h"
#include "core/analysis/Statistics.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace testsupport;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Reference population statistics over the finite values, two-pass.
struct Reference {
    double mean = 0;
    double stddev = 0;
    double rms = 0;
};

Reference reference(const std::vector<float>& values)
{
    double sum = 0;
    double squares = 0;
    int n = 0;
    for (const float v : values) {
        if (std::isfinite(v)) {
            sum += v;
            squares += double(v) * v;
            ++n;
        }
    }
    Reference r;
    r.mean = sum / n;
    double deviations = 0;
    for (const float v : values) {
        if (std::isfinite(v))
            deviations += (v - r.mean) * (v - r.mean);
    }
    r.stddev = std::sqrt(deviations / n);
    r.rms = std::sqrt(squares / n);
    return r;
}

bool near(double actual, double expected)
{
    return std::abs(actual - expected) <= 1e-12 * std::max(1.0, std::abs(expected));
}

}  // namespace

class TestStatistics : public QObject {
    Q_OBJECT

private slots:
    void countsAndMoments();
    void nanFirstDoesNotBecomeTheMinimum();
    void chunkedEqualsWhole();
    void emptyAndNonFiniteOnly_data();
    void emptyAndNonFiniteOnly();
    void histogramBinsAndEdges();
    void histogramOfAConstant();
    void computeStatisticsOnAFixture();
};

void TestStatistics::countsAndMoments()
{
    const std::vector<float> values{1.0f, -2.0f, 3.0f, 0.0f, kNaN, kInf, -kInf, 0.5f, -0.0f};
    gguf::StatisticsAccumulator accumulator;
    accumulator.add(values);
    const gguf::Statistics s = accumulator.result();
    QCOMPARE(s.count, std::uint64_t(9));
    QCOMPARE(s.nanCount, std::uint64_t(1));
    QCOMPARE(s.infCount, std::uint64_t(2));
    QCOMPARE(s.finiteCount, std::uint64_t(6));
    QCOMPARE(s.zeroCount, std::uint64_t(2));  // +0 and -0
    QCOMPARE(s.min, -2.0);
    QCOMPARE(s.max, 3.0);
    // Finite values 1, -2, 3, 0, 0.5, -0: sum 2.5, sum of squares 14.25, n = 6.
    QVERIFY(near(s.mean, 2.5 / 6));
    QVERIFY(near(s.rms, std::sqrt(14.25 / 6)));
    const Reference r = reference(values);
    QVERIFY(near(s.mean, r.mean));
    QVERIFY2(near(s.stddev, r.stddev), qPrintable(QString::number(s.stddev, 'g', 17) + QLatin1Char(' ') + QString::number(r.stddev, 'g', 17)));
    QVERIFY(near(s.rms, r.rms));
}

void TestStatistics::nanFirstDoesNotBecomeTheMinimum()
{
    const std::vector<float> values{kNaN, 5.0f, -kInf, 2.0f, kNaN};
    gguf::StatisticsAccumulator accumulator;
    accumulator.add(values);
    const gguf::Statistics s = accumulator.result();
    QCOMPARE(s.min, 2.0);
    QCOMPARE(s.max, 5.0);
    QCOMPARE(s.mean, 3.5);
    QCOMPARE(s.stddev, 1.5);
    QCOMPARE(s.nanCount, std::uint64_t(2));
    QCOMPARE(s.infCount, std::uint64_t(1));
}

void TestStatistics::chunkedEqualsWhole()
{
    std::vector<float> values;
    for (int i = 0; i < 1000; ++i)
        values.push_back(std::sin(float(i)) * float(i % 17));
    gguf::StatisticsAccumulator whole;
    whole.add(values);
    gguf::StatisticsAccumulator chunked;
    const std::span<const float> all(values);
    chunked.add(all.subspan(0, 1));
    chunked.add(all.subspan(1, 498));
    chunked.add(all.subspan(499, 0));
    chunked.add(all.subspan(499));
    const gguf::Statistics a = whole.result();
    const gguf::Statistics b = chunked.result();
    // Same values in the same order: the sums, and so every result, are identical (QCOMPARE on
    // doubles is fuzzy, hence ==).
    QCOMPARE(b.count, a.count);
    QVERIFY(b.min == a.min && b.max == a.max);
    QVERIFY(b.mean == a.mean && b.rms == a.rms && b.stddev == a.stddev);
    const Reference r = reference(values);
    QVERIFY(near(a.mean, r.mean));
    QVERIFY(near(a.stddev, r.stddev));
}

void TestStatistics::emptyAndNonFiniteOnly_data()
{
    QTest::addColumn<QList<float>>("values");
    QTest::addColumn<quint64>("nanCount");
    QTest::addColumn<quint64>("infCount");
    QTest::newRow("empty") << QList<float>{} << quint64(0) << quint64(0);
    QTest::newRow("NaN only") << QList<float>{kNaN, kNaN} << quint64(2) << quint64(0);
    QTest::newRow("Inf only") << QList<float>{kInf, -kInf, kInf} << quint64(0) << quint64(3);
}

void TestStatistics::emptyAndNonFiniteOnly()
{
    QFETCH(QList<float>, values);
    QFETCH(quint64, nanCount);
    QFETCH(quint64, infCount);
    gguf::StatisticsAccumulator accumulator;
    accumulator.add(std::span<const float>(values.constData(), static_cast<std::size_t>(values.size())));
    const gguf::Statistics s = accumulator.result();
    QCOMPARE(s.count, static_cast<std::uint64_t>(values.size()));
    QCOMPARE(s.finiteCount, std::uint64_t(0));
    QCOMPARE(s.nanCount, nanCount);
    QCOMPARE(s.infCount, infCount);
    // Nothing finite to describe: the moments say so with NaN rather than a made-up 0.
    QVERIFY(std::isnan(s.min) && std::isnan(s.max) && std::isnan(s.mean) && std::isnan(s.stddev) && std::isnan(s.rms));
}

void TestStatistics::histogramBinsAndEdges()
{
    gguf::Histogram histogram(0.0, 4.0, 4);  // bins [0,1) [1,2) [2,3) [3,4]
    const std::vector<float> values{0.0f, 0.5f, 1.0f, 1.999f, 2.0f, 3.999f, 4.0f, -0.1f, 4.1f, -7.0f, kNaN, kInf, -kInf};
    histogram.add(values);
    QCOMPARE(histogram.counts(), (std::vector<std::uint64_t>{2, 2, 1, 2}));  // 4.0, the upper edge, is in the last bin
    QCOMPARE(histogram.below(), std::uint64_t(2));                           // -0.1 and -7
    QCOMPARE(histogram.above(), std::uint64_t(1));                           // 4.1
    // Only finite values are binned or counted outside; NaN and Inf are the statistics' business.
    QCOMPARE(histogram.lower(), 0.0);
    QCOMPARE(histogram.upper(), 4.0);
    for (std::uint32_t bin = 0; bin < 4; ++bin)
        QCOMPARE(histogram.binLower(bin), double(bin));

    gguf::Histogram shifted(-1.0, 1.0, 8);  // width 0.25
    shifted.add(std::vector<float>{-1.0f, -0.75f, -0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f});
    QCOMPARE(shifted.counts(), (std::vector<std::uint64_t>{1, 1, 1, 1, 1, 1, 1, 2}));
    QCOMPARE(shifted.binLower(5), 0.25);
}

void TestStatistics::histogramOfAConstant()
{
    // A constant tensor has min == max: every value belongs in the one range there is.
    gguf::Histogram histogram(2.0, 2.0, 4);
    histogram.add(std::vector<float>{2.0f, 2.0f, 2.0f});
    std::uint64_t binned = 0;
    for (const std::uint64_t count : histogram.counts())
        binned += count;
    QCOMPARE(binned, std::uint64_t(3));
    QCOMPARE(histogram.below(), std::uint64_t(0));
    QCOMPARE(histogram.above(), std::uint64_t(0));
}

void TestStatistics::computeStatisticsOnAFixture()
{
    // dims.gguf's d1 holds 1.25, 2.25, ..., 40.25.
    const auto file = gguf::GgufFile::open(fixturePath(QStringLiteral("dims.gguf")).toStdString());
    QVERIFY2(file, file ? "" : file.error().toString().c_str());
    const gguf::TensorInfo* d1 = file.value()->findTensor("d1");
    QVERIFY(d1);
    const auto result = gguf::computeStatistics(gguf::wholeTensor(*d1), 4);
    QVERIFY2(result, result ? "" : result.error().message.c_str());
    const gguf::Statistics& s = result->statistics;
    QCOMPARE(s.count, std::uint64_t(40));
    QCOMPARE(s.min, 1.25);
    QCOMPARE(s.max, 40.25);
    QCOMPARE(s.mean, 20.75);
    QVERIFY(near(s.stddev, std::sqrt((40.0 * 40.0 - 1.0) / 12.0)));  // population sd of 40 consecutive values
    // Bins of width 9.75 from 1.25: ten values each, 40.25 (the upper edge) in the last.
    QCOMPARE(result->histogram.lower(), 1.25);
    QCOMPARE(result->histogram.upper(), 40.25);
    QCOMPARE(result->histogram.counts(), (std::vector<std::uint64_t>{10, 10, 10, 10}));
    QCOMPARE(result->histogram.below() + result->histogram.above(), std::uint64_t(0));
}

QTEST_GUILESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
