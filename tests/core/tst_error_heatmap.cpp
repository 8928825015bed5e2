// core/ErrorHeatmap and core/ErrorDistribution against values computed here from
// dequantizeRows of the fixture files: tiny-llama-F32 is the reference, tiny-llama-Q4_K (ggml's
// quantization of the same weights) and the in-memory q4_K simulation are the columns.

#include "core/gguf/Dequantize.h"
#include "core/compare/ErrorDistribution.h"
#include "core/compare/ErrorHeatmap.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/compare/ModelComparison.h"

#include <QTest>
#include <cmath>

using namespace testsupport;

namespace {

std::size_t rowOf(const gguf::ModelComparison& comparison, std::string_view name)
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == name)
            return r;
    qFatal("no row %s", std::string(name).c_str());
}

// other - reference for every element of a tensor, from the two files independently.
std::vector<float> fileErrors(const gguf::Model& reference, const gguf::Model& other, std::string_view name)
{
    const gguf::TensorInfo& a = *reference.findTensor(name);
    const gguf::TensorInfo& b = *other.findTensor(name);
    std::vector<float> x(a.elementCount()), y(b.elementCount());
    if (!gguf::dequantizeRows(a, 0, a.rowCount(), x) || !gguf::dequantizeRows(b, 0, b.rowCount(), y))
        qFatal("dequantizeRows failed");
    std::vector<float> errors(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        errors[i] = y[i] - x[i];
    return errors;
}

}  // namespace

class TestErrorHeatmap : public QObject {
    Q_OBJECT
    std::shared_ptr<const gguf::Model> m_f32;
    std::shared_ptr<const gguf::Model> m_q4k;
    std::optional<gguf::ModelComparison> m_comparison;

private slots:
    // Opened here, not in member initialisers, so a missing file fails the suite's setup with a
    // message instead of aborting the process before any test runs.
    void initTestCase()
    {
        m_f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        m_q4k = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(m_f32 && m_q4k);
        gguf::ComparisonOptions options;
        options.referenceIndex = 0;
        options.simulatedTypes = {gguf::findTypeByName("q4_K")->id};
        auto comparison = gguf::ModelComparison::create({m_f32, m_q4k}, options);
        QVERIFY2(comparison, comparison ? "" : comparison.error().toString().c_str());
        m_comparison.emplace(std::move(comparison).value());
        QCOMPARE(m_comparison->columns().size(), std::size_t{2});
    }

    // Grids of several sizes and both aggregates, in one band and in many, for the file column
    // and the simulated one; expected cells come from fileErrors and heatmapCellStart.
    void cellsMatchIndependentErrors_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("column");
        QTest::addColumn<int>("gridSize");
        QTest::addColumn<int>("aggregate");
        QTest::addColumn<int>("bands");
        for (const int column : {0, 1})
            for (const int gridSize : {256, 100, 7})
                for (const int aggregate : {int(gguf::CellAggregate::Mean), int(gguf::CellAggregate::AbsMax)})
                    for (const int bands : {1, 5})
                        QTest::addRow("attn_q col%d grid%d agg%d bands%d", column, gridSize, aggregate, bands)
                            << QStringLiteral("blk.0.attn_q.weight") << column << gridSize << aggregate << bands;
        QTest::addRow("ffn_down 768x256 file") << QStringLiteral("blk.1.ffn_down.weight") << 0 << 64 << int(gguf::CellAggregate::Mean) << 3;
    }

    void cellsMatchIndependentErrors()
    {
        QFETCH(QString, tensor);
        QFETCH(int, column);
        QFETCH(int, gridSize);
        QFETCH(int, aggregate);
        QFETCH(int, bands);
        const std::string name = tensor.toStdString();
        const std::size_t row = rowOf(*m_comparison, name);
        // The simulated q4_K column must equal ggml's file (byte-identical quantizers).
        const std::vector<float> errors = fileErrors(*m_f32, *m_q4k, name);
        const gguf::HeatmapRegion extent = gguf::errorHeatmapExtent(*m_comparison, row);
        const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(extent, static_cast<std::uint32_t>(gridSize), static_cast<std::uint32_t>(gridSize),
                                                            static_cast<gguf::CellAggregate>(aggregate));
        std::vector<float> cells(static_cast<std::size_t>(grid.rows) * grid.columns);
        for (int band = 0; band < bands; ++band) {
            const auto first = static_cast<std::uint32_t>(std::uint64_t{grid.rows} * band / bands);
            const auto last = static_cast<std::uint32_t>(std::uint64_t{grid.rows} * (band + 1) / bands);
            const std::span<float> out(cells.data() + std::size_t{first} * grid.columns, std::size_t{last - first} * grid.columns);
            QVERIFY(gguf::reduceErrorHeatmapRows(*m_comparison, row, static_cast<std::size_t>(column), grid, first, last, out));
        }
        const std::uint64_t rowLength = extent.columnEnd;
        for (std::uint32_t gr = 0; gr < grid.rows; ++gr) {
            for (std::uint32_t gc = 0; gc < grid.columns; ++gc) {
                double sum = 0.0;
                float absMax = 0.0f;
                std::uint64_t count = 0;
                for (std::uint64_t r = gguf::heatmapCellStart(0, extent.rowEnd, grid.rows, gr); r < gguf::heatmapCellStart(0, extent.rowEnd, grid.rows, gr + 1); ++r)
                    for (std::uint64_t c = gguf::heatmapCellStart(0, rowLength, grid.columns, gc);
                         c < gguf::heatmapCellStart(0, rowLength, grid.columns, gc + 1); ++c) {
                        const float e = errors[r * rowLength + c];
                        sum += e;
                        if (count == 0 || std::fabs(e) > std::fabs(absMax))
                            absMax = e;
                        ++count;
                    }
                const float expected = aggregate == int(gguf::CellAggregate::Mean) ? static_cast<float>(sum / static_cast<double>(count)) : absMax;
                const float actual = cells[std::size_t{gr} * grid.columns + gc];
                if (actual != expected)
                    QFAIL(qPrintable(QStringLiteral("cell %1,%2: %3 != %4").arg(gr).arg(gc).arg(double(actual), 0, 'g', 9).arg(double(expected), 0, 'g', 9)));
            }
        }
    }

    void zoomedRegion()
    {
        const std::size_t row = rowOf(*m_comparison, "blk.1.attn_k.weight");
        const std::vector<float> errors = fileErrors(*m_f32, *m_q4k, "blk.1.attn_k.weight");
        const gguf::HeatmapRegion region{10, 42, 100, 164};
        const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, 2048, 2048, gguf::CellAggregate::Mean);
        QCOMPARE(grid.rows, 32u);
        QCOMPARE(grid.columns, 64u);
        std::vector<float> cells(std::size_t{grid.rows} * grid.columns);
        QVERIFY(gguf::reduceErrorHeatmapRows(*m_comparison, row, 0, grid, 0, grid.rows, cells));
        for (std::uint32_t r = 0; r < grid.rows; ++r)
            for (std::uint32_t c = 0; c < grid.columns; ++c)
                QCOMPARE(cells[std::size_t{r} * grid.columns + c], errors[(region.rowBegin + r) * 256 + region.columnBegin + c]);
    }

    void rejectsBadRequests()
    {
        const std::size_t row = rowOf(*m_comparison, "blk.0.attn_q.weight");
        const gguf::HeatmapGrid outside = gguf::fitHeatmapGrid({0, 257, 0, 256}, 64, 64, gguf::CellAggregate::Mean);
        std::vector<float> cells(std::size_t{outside.rows} * outside.columns);
        QVERIFY(!gguf::reduceErrorHeatmapRows(*m_comparison, row, 0, outside, 0, outside.rows, cells));
        const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid({0, 256, 0, 256}, 64, 64, gguf::CellAggregate::Mean);
        std::vector<float> tooSmall(3);
        QVERIFY(!gguf::reduceErrorHeatmapRows(*m_comparison, row, 0, grid, 0, grid.rows, tooSmall));
        std::atomic<bool> cancelled{true};
        std::vector<float> all(std::size_t{grid.rows} * grid.columns);
        QVERIFY(!gguf::reduceErrorHeatmapRows(*m_comparison, row, 0, grid, 0, grid.rows, all, &cancelled));
    }

    void signedHistogramCountsEveryError()
    {
        const std::size_t row = rowOf(*m_comparison, "blk.0.attn_v.weight");
        const std::vector<float> errors = fileErrors(*m_f32, *m_q4k, "blk.0.attn_v.weight");
        std::vector<std::uint64_t> counts(11);
        const double limit = 0.01;
        for (const gguf::ElementRange& range : m_comparison->cellRanges(row, 0, 4096))
            QVERIFY(gguf::addSignedErrors(*m_comparison, row, 0, range, limit, counts));
        std::vector<std::uint64_t> expected(11);
        for (const float e : errors)
            ++expected[static_cast<std::size_t>(std::clamp<long>(static_cast<long>(std::floor((double(e) + limit) * 11 / (2 * limit))), 0, 10))];
        QCOMPARE(counts, expected);
    }

    void blockErrorsOfFileAndSimulatedColumnsAgree()
    {
        const std::size_t row = rowOf(*m_comparison, "blk.0.attn_q.weight");
        const gguf::ElementRange range{0, 256 * 16};
        gguf::BlockErrorPoints file, simulated;
        QVERIFY(gguf::blockErrors(*m_comparison, row, 0, range, file));
        QVERIFY(gguf::blockErrors(*m_comparison, row, 1, range, simulated));
        QCOMPARE(file.scales.size(), std::size_t{16});
        QCOMPARE(file.scales, simulated.scales);
        QCOMPARE(file.rmsError, simulated.rmsError);
        const std::vector<float> errors = fileErrors(*m_f32, *m_q4k, "blk.0.attn_q.weight");
        double sum = 0.0;
        for (std::size_t i = 256 * 3; i < 256 * 4; ++i)
            sum += double(errors[i]) * double(errors[i]);
        QCOMPARE(file.rmsError[3], static_cast<float>(std::sqrt(sum / 256)));
        QVERIFY(file.scales[3] > 0.0f);
    }
};

QTEST_APPLESS_MAIN(TestErrorHeatmap)
#include "tst_error_heatmap.moc"
