// The metric table (ErrorMetricTable.h), combining metrics across tensors and layers from the
// exact sums, and the comparison engine both the CLI and the GUI schedule.

#include "TestPools.h"
#include "core/compare/ComparisonEngine.h"
#include "core/compare/ErrorMetricTable.h"
#include "core/compare/LayerErrorMetrics.h"
#include "core/compare/ModelComparison.h"
#include "OpenFixture.h"
#include "Waits.h"

#include <QtTest>

#include <bit>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <set>
#include <thread>

using namespace gguf;

namespace {

bool sameBits(double a, double b)
{
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Every figure of the table, bit for bit (NaNs with the same payload match).
QString firstDifference(const ErrorMetrics& actual, const ErrorMetrics& expected)
{
    for (const ErrorMetricInfo& metric : errorMetricTable())
        if (!sameBits(metric.valueIn(actual), metric.valueIn(expected)))
            return QStringLiteral("%1: %2 vs %3").arg(QString::fromLatin1(metric.key)).arg(metric.valueIn(actual), 0, 'g', 17).arg(metric.valueIn(expected), 0, 'g', 17);
    return {};
}

std::optional<ModelComparison> tinyComparison()
{
    const auto f32 = testsupport::openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    const auto q4k = testsupport::openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    if (!f32 || !q4k)
        return std::nullopt;
    ComparisonOptions options;
    options.referenceIndex = 0;
    options.simulatedTypes = {typeIdValue(GgmlTypeId::Q8_0)};
    auto comparison = ModelComparison::create({f32, q4k}, options);
    if (!comparison)
        return std::nullopt;
    return std::move(*comparison);
}

// The one-tensor comparison: token_embd (131072 values) against the Q4_K file and
// q8_0 simulated.
std::optional<ModelComparison> oneTensorComparison()
{
    const auto f32 = testsupport::openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    const auto q4k = testsupport::openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    if (!f32 || !q4k)
        return std::nullopt;
    ComparisonOptions options;
    options.referenceIndex = 0;
    options.simulatedTypes = {typeIdValue(GgmlTypeId::Q8_0)};
    options.includeTensor = [](std::string_view name) { return name == "token_embd.weight"; };
    auto comparison = ModelComparison::create({f32, q4k}, options);
    if (!comparison)
        return std::nullopt;
    return std::move(*comparison);
}

constexpr std::uint64_t kRowRanges = 256;  // token_embd's row length: 512 ranges per cell

}  // namespace

class TestMetricTable : public QObject {
    Q_OBJECT

private slots:
    void tableIsTheJsonOrder()
    {
        std::set<std::string> keys;
        std::vector<std::string> names;
        for (const ErrorMetricInfo& metric : errorMetricTable()) {
            QVERIFY2(keys.insert(metric.key).second, metric.key);
            QCOMPARE(findErrorMetric(metric.key), &metric);
            QVERIFY(metric.label && *metric.label);
            names.emplace_back(metric.key);
        }
        QCOMPARE(names, errorMetricNames());
        QCOMPARE(findErrorMetric("no_such_metric"), nullptr);
        QVERIFY(findErrorMetric("sqnr_db")->higherIsBetter);
        QCOMPARE(QString::fromLatin1(findErrorMetric("sqnr_db")->unit), QStringLiteral("dB"));
        QVERIFY(!findErrorMetric("rmse")->higherIsBetter);
    }

    void valuesFollowTheTable()
    {
        ErrorAccumulator accumulator;
        const std::vector<float> reference = {1.0f, -2.0f, 3.0f, 0.5f};
        const std::vector<float> other = {1.25f, -2.0f, 2.5f, 0.0f};
        accumulator.add(reference, other);
        const ErrorMetrics m = accumulator.result();
        const std::vector<double> values = errorMetricValues(m);
        QCOMPARE(values.size(), errorMetricTable().size());
        for (std::size_t i = 0; i < values.size(); ++i)
            QVERIFY(sameBits(values[i], errorMetricTable()[i].valueIn(m)));
        QCOMPARE(findErrorMetric("count")->valueIn(m), 4.0);
        QCOMPARE(findErrorMetric("rmse")->valueIn(m), m.rmse);
        QCOMPARE(m.sums.count, std::uint64_t{4});
    }

    // One part combines to itself; several parts give the figures of their merged sums, and the
    // worst part's percentiles.
    void combineFromExactSums()
    {
        ErrorAccumulator a, b;
        a.add(std::vector<float>{1.0f, 2.0f, 3.0f}, std::vector<float>{1.5f, 2.0f, 2.0f});
        b.add(std::vector<float>{-4.0f, 0.25f}, std::vector<float>{-4.0f, 0.0f});
        const ErrorMetrics ma = a.result(), mb = b.result();
        const ErrorMetrics* one[] = {&ma};
        QCOMPARE(firstDifference(combineErrorMetrics(one), ma), QString());

        const ErrorMetrics* both[] = {&ma, &mb};
        const ErrorMetrics combined = combineErrorMetrics(both);
        ErrorSums sums = ma.sums;
        sums.merge(mb.sums);
        const ErrorMetrics fromSums = ErrorAccumulator::metricsFrom(sums, AbsErrorHistogram{});
        for (const ErrorMetricInfo& metric : errorMetricTable()) {
            const double expected = metric.combination == MetricCombination::FromSums
                                        ? metric.valueIn(fromSums)
                                        : std::max(metric.valueIn(ma), metric.valueIn(mb));
            QVERIFY2(sameBits(metric.valueIn(combined), expected), metric.key);
        }
        QCOMPARE(combined.count, std::uint64_t{5});
        QCOMPARE(combined.maxAbsError, 1.0);
        QCOMPARE(combineErrorMetrics({}).count, std::uint64_t{0});
        QVERIFY(std::isnan(combineErrorMetrics({}).rmse));
    }

    // A column's total is its cells combined (the runner also merges the sums in row order).
    void columnTotalsAreTheCellsCombined()
    {
        const auto comparison = tinyComparison();
        QVERIFY(comparison);
        ComparisonRunOptions run;
        run.executor = &testsupport::poolOf(2);
        const auto results = runComparison(*comparison, run);
        QVERIFY(results);
        for (std::size_t c = 0; c < comparison->columns().size(); ++c) {
            std::vector<const ErrorMetrics*> cells;
            for (std::size_t r = 0; r < comparison->rows().size(); ++r)
                if (results->cells[r][c])
                    cells.push_back(&*results->cells[r][c]);
            QCOMPARE(cells.size(), results->columnTensorCounts[c]);
            const ErrorMetrics combined = combineErrorMetrics(cells);
            for (const ErrorMetricInfo& metric : errorMetricTable())
                if (metric.combination == MetricCombination::FromSums)
                    QVERIFY2(sameBits(metric.valueIn(combined), metric.valueIn(results->columnTotals[c])), metric.key);
        }
    }

    void layersCombineTheirTensors()
    {
        const auto comparison = tinyComparison();
        QVERIFY(comparison);
        const auto results = runComparison(*comparison);
        QVERIFY(results);
        const std::vector<LayerErrorMetrics> layers = layerErrorMetrics(*comparison, *results, 0);
        QVERIFY(layers.size() >= 2);
        for (std::size_t i = 0; i < layers.size(); ++i) {
            QVERIFY(i == 0 || layers[i - 1].layer < layers[i].layer);
            std::vector<const ErrorMetrics*> parts;
            for (std::size_t r = 0; r < comparison->rows().size(); ++r)
                if (comparison->rows()[r].nameParts.layer == layers[i].layer && results->cells[r][0])
                    parts.push_back(&*results->cells[r][0]);
            QCOMPARE(layers[i].tensorCount, parts.size());
            QCOMPARE(firstDifference(layers[i].metrics, combineErrorMetrics(parts)), QString());
        }
        // One tensor of a kind per layer: the layer's figure is that tensor's, percentiles included.
        for (const LayerErrorMetrics& layer : layerErrorMetrics(*comparison, *results, 1, "ffn_down")) {
            QCOMPARE(layer.tensorCount, std::size_t{1});
            const std::string name = "blk." + std::to_string(layer.layer) + ".ffn_down.weight";
            for (std::size_t r = 0; r < comparison->rows().size(); ++r)
                if (comparison->rows()[r].reference->name == name)
                    QCOMPARE(firstDifference(layer.metrics, *results->cells[r][1]), QString());
        }
    }

    // Units run in any order (here backwards, one thread) give the runner's figures bit for bit.
    void engineUnitsInAnyOrderEqualTheRunner()
    {
        const auto comparison = tinyComparison();
        QVERIFY(comparison);
        ComparisonRunOptions run;
        run.executor = &testsupport::poolOf(3);
        const auto expected = runComparison(*comparison, run);
        QVERIFY(expected);

        ComparisonEngine engine(*comparison);
        QVERIFY(engine.unitCount() > 0);
        std::uint64_t done = 0;
        for (std::size_t unit = engine.unitCount(); unit-- > 0;) {
            const UnitOutcome outcome = engine.runUnit(unit, {}, [&](std::uint64_t elements) { done += elements; });
            QVERIFY(outcome.outcome == WorkOutcome::Done);
        }
        QCOMPARE(done, engine.totalElements());
        const ComparisonResults actual = engine.results();
        for (std::size_t r = 0; r < comparison->rows().size(); ++r)
            for (std::size_t c = 0; c < comparison->columns().size(); ++c) {
                QCOMPARE(actual.cells[r][c].has_value(), expected->cells[r][c].has_value());
                if (actual.cells[r][c])
                    QCOMPARE(firstDifference(*actual.cells[r][c], *expected->cells[r][c]), QString());
            }
        for (std::size_t c = 0; c < comparison->columns().size(); ++c) {
            QCOMPARE(actual.columnTensorCounts[c], expected->columnTensorCounts[c]);
            QCOMPARE(firstDifference(actual.columnTotals[c], expected->columnTotals[c]), QString());
        }
    }

    void engineUnitStopsWhenCancelled()
    {
        const auto comparison = tinyComparison();
        QVERIFY(comparison);
        ComparisonEngine engine(*comparison);
        QVERIFY(engine.unitCount() > 0);
        const UnitOutcome outcome = engine.runUnit(0, [] { return true; });
        QVERIFY(outcome.outcome == WorkOutcome::Cancelled);
        QVERIFY(!outcome.error);
    }
    // A cell is many units (its ranges); the units of a band's cells alternate, so threads that
    // take units in order work on different cells.
    void engineUnitsAreRangesOfCells()
    {
        const auto comparison = oneTensorComparison();
        QVERIFY(comparison);
        const ComparisonEngine engine(*comparison, kRowRanges);
        const std::size_t perCell = comparison->cellRanges(0, 0, kRowRanges).size();
        QCOMPARE(perCell, std::size_t(512));
        QCOMPARE(engine.unitCount(), 2 * perCell);
        for (std::size_t unit = 0; unit < engine.unitCount(); ++unit) {
            QCOMPARE(engine.unitRow(unit), std::size_t(0));
            QCOMPARE(engine.unitColumn(unit), unit % 2);
        }
        QCOMPARE(engine.totalElements(), std::uint64_t(2 * 131072));
    }

    // Three threads each start their share of the units backwards (so a later range of a cell is
    // often started before an earlier one): no deadlock, and the figures equal one thread's.
    void engineUnitsOutOfOrderOnThreadsEqualOneThread()
    {
        const auto comparison = oneTensorComparison();
        QVERIFY(comparison);
        ComparisonRunOptions run;
        run.chunkElements = kRowRanges;
        const auto expected = runComparison(*comparison, run);
        QVERIFY(expected);

        ComparisonEngine engine(*comparison, kRowRanges);
        constexpr std::size_t kThreads = 3;
        std::atomic<std::uint64_t> done{0};
        std::atomic<int> notDone{0};
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                for (std::size_t unit = engine.unitCount(); unit-- > 0;) {
                    if (unit % kThreads != t)
                        continue;
                    if (engine.runUnit(unit, {}, [&](std::uint64_t elements) { done += elements; }).outcome != WorkOutcome::Done)
                        ++notDone;
                }
            });
        for (std::thread& thread : threads)
            thread.join();
        QCOMPARE(notDone.load(), 0);
        QCOMPARE(done.load(), engine.totalElements());
        const ComparisonResults actual = engine.results();
        for (std::size_t c = 0; c < comparison->columns().size(); ++c) {
            QVERIFY(actual.cells[0][c] && expected->cells[0][c]);
            QCOMPARE(firstDifference(*actual.cells[0][c], *expected->cells[0][c]), QString());
            QCOMPARE(firstDifference(actual.columnTotals[c], expected->columnTotals[c]), QString());
        }
    }

    // A unit waiting for its turn hears that an earlier range of its cell was cancelled and
    // returns instead of waiting for it; later units of that cell return at once.
    void engineWaitingUnitHearsCancellation()
    {
        const auto comparison = oneTensorComparison();
        QVERIFY(comparison);
        ComparisonEngine engine(*comparison, kRowRanges);
        std::vector<std::size_t> cellUnits;  // the units of column 0's cell
        std::size_t otherCell = 0;
        for (std::size_t unit = 0; unit < engine.unitCount(); ++unit) {
            if (engine.unitColumn(unit) == 0)
                cellUnits.push_back(unit);
            else
                otherCell = unit;
        }
        QVERIFY(cellUnits.size() >= 3 && engine.unitColumn(otherCell) == 1);
        // A unit polls its cancel function before it takes a range and then each time it is about
        // to wait for its turn. The first unit cancels at its second poll (range 0 prepared), but
        // only once the second unit has taken range 1 and is about to wait for its turn.
        std::promise<void> firstTookItsRange;
        std::promise<void> secondWaitsForItsTurn;
        std::future<void> secondWaits = secondWaitsForItsTurn.get_future();
        int polls = 0;
        const auto cancelSecondPoll = [&] {
            if (++polls == 1)
                return false;  // before taking range 0
            if (polls == 2) {
                firstTookItsRange.set_value();
                secondWaits.wait_for(std::chrono::milliseconds(testsupport::kHangGuardMs));
            }
            return true;
        };
        int secondPolls = 0;
        const auto reportSecondWaiting = [&] {
            if (++secondPolls == 2)
                secondWaitsForItsTurn.set_value();
            return false;
        };
        std::future<UnitOutcome> first = std::async(std::launch::async, [&] { return engine.runUnit(cellUnits[0], cancelSecondPoll); });
        firstTookItsRange.get_future().wait();
        std::future<UnitOutcome> second = std::async(std::launch::async, [&] { return engine.runUnit(cellUnits[1], reportSecondWaiting); });
        QVERIFY(first.get().outcome == WorkOutcome::Cancelled);
        QVERIFY(second.get().outcome == WorkOutcome::Cancelled);
        QVERIFY(engine.runUnit(cellUnits[2]).outcome == WorkOutcome::Cancelled);
        // The other cell is not concerned.
        QVERIFY(engine.runUnit(otherCell).outcome == WorkOutcome::Done);
    }
};

QTEST_APPLESS_MAIN(TestMetricTable)
#include "tst_metric_table.moc"
