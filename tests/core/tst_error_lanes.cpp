// The summation grid of the plain error sums (compare/ErrorLanes.h): the AVX2 kernel gives the
// scalar kernel's bits, the figures do not depend on how a stream is cut (add() calls, prepared
// ranges at any position, lanes out of step), the sums stay within a few ulps of a long-double
// reference and are more accurate than one running double sum, and the |error| histogram counts
// exactly what AbsErrorHistogram::add counts.

#include "core/compare/ErrorLanes.h"
#include "core/compare/ErrorMetrics.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace gguf;

namespace {

struct Pairs {
    std::vector<float> reference;
    std::vector<float> other;
};

// Values over many octaves, with exact zeros, equal pairs, subnormals, the float extremes
// (whose difference exceeds FLT_MAX) and, when asked, NaN and infinities.
Pairs hostilePairs(std::size_t n, unsigned seed, bool nonFinite, bool extremes = true)
{
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<double> exponent(-40.0, 20.0);
    std::uniform_int_distribution<int> kind(0, 99);
    Pairs p;
    p.reference.resize(n);
    p.other.resize(n);
    const float big = std::numeric_limits<float>::max();
    for (std::size_t i = 0; i < n; ++i) {
        const float r = normal(random) * float(std::exp2(exponent(random)));
        float o = r + 0.01f * normal(random) * std::abs(r);
        switch (kind(random)) {
        case 0: o = r; break;
        case 1: p.reference[i] = 0.0f, p.other[i] = 0.0f; continue;
        case 2:
            if (extremes) {
                p.reference[i] = big, p.other[i] = -big;
                continue;
            }
            break;
        case 3: p.reference[i] = 1e-45f, p.other[i] = -3e-45f; continue;
        case 4:
            if (nonFinite) {
                p.reference[i] = std::numeric_limits<float>::quiet_NaN(), p.other[i] = 1.0f;
                continue;
            }
            break;
        case 5:
            if (nonFinite) {
                p.reference[i] = 2.0f, p.other[i] = -std::numeric_limits<float>::infinity();
                continue;
            }
            break;
        default: break;
        }
        p.reference[i] = r;
        p.other[i] = o;
    }
    return p;
}

std::vector<std::uint64_t> bits(const ErrorMetrics& m)
{
    std::vector<std::uint64_t> out{m.count, m.nonFiniteCount};
    for (const double v : errorMetricValues(m))
        out.push_back(std::bit_cast<std::uint64_t>(v));
    for (const double v : {m.sums.sumSquaredError, m.sums.sumAbsError, m.sums.maxAbsError, m.sums.sumReferenceSquared,
                           m.sums.sumOtherSquared, m.sums.sumProduct})
        out.push_back(std::bit_cast<std::uint64_t>(v));
    return out;
}

std::vector<std::uint64_t> laneBits(const ErrorLaneSums& l)
{
    std::vector<std::uint64_t> out{l.count, l.nonFiniteCount};
    for (const double* lane : {l.squaredError, l.absError, l.maxAbsError, l.referenceSquared, l.otherSquared, l.product})
        for (std::size_t k = 0; k < kErrorSumLanes; ++k)
            out.push_back(std::bit_cast<std::uint64_t>(lane[k]));
    return out;
}

// Count and quantiles as bits (NaN, for no values, equal to NaN).
std::vector<std::uint64_t> quantiles(const AbsErrorHistogram& h)
{
    std::vector<std::uint64_t> out{h.count()};
    for (int permille = 0; permille <= 1000; permille += 7)
        out.push_back(std::bit_cast<std::uint64_t>(h.quantile(permille / 1000.0)));
    out.push_back(std::bit_cast<std::uint64_t>(h.quantile(1.0)));
    return out;
}

}  // namespace

class ErrorLanesTest : public QObject {
    Q_OBJECT

private slots:
    void avx2KernelMatchesScalar_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("firstLane");
        QTest::addColumn<bool>("nonFinite");
        for (const int size : {0, 1, 7, 8, 9, 61, 4096, 10007})
            for (const int lane : {0, 3, 7})
                for (const bool nonFinite : {false, true})
                    QTest::addRow("n=%d lane=%d%s", size, lane, nonFinite ? " nan/inf" : "") << size << lane << nonFinite;
    }

    void avx2KernelMatchesScalar()
    {
        QFETCH(int, size);
        QFETCH(int, firstLane);
        QFETCH(bool, nonFinite);
        const Pairs p = hostilePairs(std::size_t(size), unsigned(size * 31 + firstLane), nonFinite);
        ErrorLaneSums scalar, vector;
        scalar.squaredError[2] = vector.squaredError[2] = 0.25;  // a lane already under way
        ErrorBinCounts scalarBins, vectorBins;
        addErrorLanesScalar(scalar, p.reference.data(), p.other.data(), p.reference.size(), std::size_t(firstLane), &scalarBins);
        if (!addErrorLanesAvx2(vector, p.reference.data(), p.other.data(), p.reference.size(), std::size_t(firstLane), &vectorBins))
            QSKIP("no AVX2 + FMA kernel in this build or on this CPU");
        QCOMPARE(laneBits(vector), laneBits(scalar));
        AbsErrorHistogram a, b;
        scalarBins.foldInto(a);
        vectorBins.foldInto(b);
        QCOMPARE(quantiles(b), quantiles(a));
    }

    // Cut anyhow, the same bits: add() in pieces of every size, and prepared ranges (summed on
    // their own, added later) that start and end off the block and lane grid.
    void figuresDoNotDependOnTheCuts()
    {
        const Pairs p = hostilePairs(50000, 11, true);
        ErrorAccumulator whole;
        whole.add(p.reference, p.other);
        const std::vector<std::uint64_t> expected = bits(whole.result());

        std::mt19937 random(5);
        std::uniform_int_distribution<std::size_t> piece(0, 9000);
        ErrorAccumulator pieces;
        ErrorAccumulator prepared;
        PreparedErrorRange range;
        for (std::size_t begin = 0; begin < p.reference.size();) {
            const std::size_t n = std::min(p.reference.size() - begin, piece(random) % 3 == 0 ? piece(random) % 9 : piece(random));
            const std::span<const float> r(p.reference.data() + begin, n);
            const std::span<const float> o(p.other.data() + begin, n);
            pieces.add(r, o);
            range.prepare(begin, r, o);
            QVERIFY(prepared.addPrepared(range, r, o));
            begin += n;
        }
        QCOMPARE(bits(pieces.result()), expected);
        QCOMPARE(bits(prepared.result()), expected);
        QCOMPARE(quantiles(prepared.histogram()), quantiles(whole.histogram()));

        // A range prepared for another position is refused, and nothing is added.
        ErrorAccumulator refusing;
        range.prepare(8, std::span(p.reference).first(100), std::span(p.other).first(100));
        QVERIFY(!refusing.addPrepared(range, std::span(p.reference).first(100), std::span(p.other).first(100)));
        QCOMPARE(refusing.streamPosition(), std::uint64_t(0));
        QCOMPARE(refusing.result().count, std::uint64_t(0));
    }

    // The histogram counts what one AbsErrorHistogram::add per finite pair counts.
    void histogramCountsEachFinitePair()
    {
        const Pairs p = hostilePairs(30011, 23, true);
        AbsErrorHistogram byHand;
        for (std::size_t i = 0; i < p.reference.size(); ++i)
            if (std::isfinite(p.reference[i]) && std::isfinite(p.other[i]))
                byHand.add(std::abs(double(p.other[i]) - double(p.reference[i])));
        ErrorAccumulator accumulator;
        accumulator.add(p.reference, p.other);
        QCOMPARE(quantiles(accumulator.histogram()), quantiles(byHand));
        QCOMPARE(accumulator.result().count, byHand.count());
    }

    // Every sum within 32 ulps of a long-double sum of the exact terms, and no further from it
    // than one running double sum in element order (what the accumulator did before the grid).
    void sumsCloseToLongDoubleReference()
    {
        const Pairs p = hostilePairs(1 << 22, 3, false, false);
        long double ref[5] = {};
        double running[5] = {};
        for (std::size_t i = 0; i < p.reference.size(); ++i) {
            const double r = p.reference[i], o = p.other[i], e = o - r;
            const long double terms[5] = {(long double)e * e, std::fabs((long double)e), (long double)r * r, (long double)o * o,
                                          (long double)r * o};
            const double doubleTerms[5] = {e * e, std::abs(e), r * r, o * o, r * o};
            for (int k = 0; k < 5; ++k) {
                ref[k] += terms[k];
                running[k] += doubleTerms[k];
            }
        }
        ErrorAccumulator accumulator;
        accumulator.add(p.reference, p.other);
        const ErrorSums s = accumulator.sums();
        const double ours[5] = {s.sumSquaredError, s.sumAbsError, s.sumReferenceSquared, s.sumOtherSquared, s.sumProduct};
        const char* names[5] = {"squared error", "abs error", "reference^2", "other^2", "product"};
        for (int k = 0; k < 5; ++k) {
            const long double oursError = std::fabs((long double)ours[k] - ref[k]);
            const long double runningError = std::fabs((long double)running[k] - ref[k]);
            qInfo("%-13s grid %.3Le, running sum %.3Le (relative to the long-double sum)", names[k], oursError / std::fabs(ref[k]),
                  runningError / std::fabs(ref[k]));
            QVERIFY2(oursError <= 32 * std::numeric_limits<double>::epsilon() * std::fabs(ref[k]), names[k]);
            QVERIFY2(oursError <= runningError + std::numeric_limits<double>::epsilon() * std::fabs(ref[k]), names[k]);
        }
    }

    // One large error, then millions of tiny ones: a running double sum drops every tiny term
    // (1 + 1e-18 == 1); the grid keeps them to within a few percent.
    void tinyTermsAfterALargeOneAreKept()
    {
        const std::size_t n = 4 << 20;
        std::vector<float> reference(n, 0.0f), other(n, 0x1p-27f);  // e^2 = 2^-54: half an ulp of 1
        other[0] = 1.0f;                                            // e^2 = 1 first
        const long double e2 = std::ldexp(1.0L, -54);
        const long double exact = 1.0L + (long double)(n - 1) * e2;
        double running = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double e = double(other[i]) - double(reference[i]);
            running += e * e;
        }
        ErrorAccumulator accumulator;
        accumulator.add(reference, other);
        const long double ours = accumulator.sums().sumSquaredError;
        const long double tiny = exact - 1.0L;
        qInfo("tiny terms kept: grid %.6Lf, running sum %.6Lf of the exact %.6Le", (ours - 1.0L) / tiny, ((long double)running - 1.0L) / tiny, tiny);
        QVERIFY(std::fabs(ours - exact) <= 0.001L * tiny);
        QVERIFY(std::fabs((long double)running - exact) > 0.1L * tiny);  // what the grid fixes
    }
};

QTEST_GUILESS_MAIN(ErrorLanesTest)
#include "tst_error_lanes.moc"
