// The metric table (ErrorMetricTable.h), combining metrics across tensors and layers from the
// exact sums, and the comparison engine both the CLI and the GUI schedule.

#include "ComparisonEngine.h"
#include "ErrorMetricTable.h"
#include "LayerErrorMetrics.h"
#include "ModelComparison.h"
#include "OpenFixture.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <set>

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
        run.threads = 2;
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
        run.threads = 3;
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
};

QTEST_APPLESS_MAIN(TestMetricTable)
#include "tst_metric_table.moc"
