// The hover readouts of the charts, driven offscreen with the mouse (QTest::mouseMove, no
// button): the pointer goes to known points of each chart, and the readout must name exactly
// what is under it (the bin, the layer, the rows and columns of a cell) and its value, checked
// against the data the chart was given (or the weights, dequantized here) rather than against
// what the chart drew.

#include "DequantizeWhole.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "WholeSlice.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/compare/ErrorDistribution.h"
#include "core/diff/ModelDiff.h"
#include "core/forward/OutputComparisonRun.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/PlotReadout.h"
#include "ui/diff/LayerDiffChart.h"
#include "ui/experts/ExpertGridView.h"
#include "ui/experts/ExpertTile.h"
#include "ui/compare/ComparePage.h"
#include "ui/compare/TensorErrorView.h"
#include "ui/output/OutputCharts.h"
#include "ui/recipe/FrontierPlot.h"
#include "ui/tensor/BlockScalesView.h"
#include "ui/tensor/DistributionView.h"
#include "ui/tensor/HeatmapView.h"

#include <QCheckBox>
#include <QRegularExpression>
#include <QTabWidget>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

using namespace testsupport;

namespace {
constexpr int kJobTimeoutMs = kHangGuardMs;

// Moves the mouse (no button) to plot coordinates (x, y) of `plot`'s main axes and returns the
// readout. The plot is laid out first, so the axes map coordinates to the pixels on screen.
QString hoverAt(QCustomPlot* plot, double x, double y)
{
    QCoreApplication::processEvents();  // a layout still pending (a tab just switched) sizes the plot first
    plot->replot();
    const QPoint pixel(static_cast<int>(std::lround(plot->xAxis->coordToPixel(x))), static_cast<int>(std::lround(plot->yAxis->coordToPixel(y))));
    QTest::mouseMove(plot, pixel);
    return plotreadout::current(plot);
}

// A value axis's middle: the readouts of keyed charts depend on the key alone.
double middle(const QCPAxis* axis)
{
    return axis->range().center();
}

// A window holding `widget`, shown offscreen at a fixed size.
struct Shown {
    QWidget window;
    explicit Shown(QWidget* widget, int width = 640, int height = 420)
    {
        widget->setParent(&window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(widget);
        window.resize(width, height);
        window.show();
    }
};

double numberAfter(const QString& text, const QString& label)
{
    const QRegularExpression pattern(QRegularExpression::escape(label) + QStringLiteral("\\s*([-+0-9.eE]+)"));
    const QRegularExpressionMatch match = pattern.match(text);
    return match.hasMatch() ? match.captured(1).toDouble() : std::nan("");
}
}  // namespace

class TestGuiPlotReadout : public QObject {
    Q_OBJECT
private slots:
    // The value histogram: the bin under the pointer, its edges and its count (not the bar's
    // height, which is log10(1 + count) under "Log counts").
    void histogramNamesTheBinAndItsCount()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        JobProgressBar progress;
        auto* view = new DistributionView(&progress);
        Shown shown(view);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        QSignalSpy ready(view, &DistributionView::statisticsReady);
        view->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(ready.wait(kJobTimeoutMs));
        view->findChild<QCheckBox*>(QStringLiteral("logCounts"))->setChecked(true);
        const gguf::Histogram& h = view->result()->histogram;
        const auto bins = static_cast<std::uint32_t>(h.counts().size());
        const std::uint32_t fullest = static_cast<std::uint32_t>(std::max_element(h.counts().begin(), h.counts().end()) - h.counts().begin());
        for (const std::uint32_t bin : {0u, fullest, bins - 1}) {
            const double width = (h.upper() - h.lower()) / bins;
            const QString text = hoverAt(view->plot(), h.binLower(bin) + width * 0.3, middle(view->plot()->yAxis));
            QVERIFY2(text.startsWith(QStringLiteral("bin %1 of %2: values in [").arg(bin + 1).arg(bins)), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("\n%1 values (").arg(h.counts()[bin])), qPrintable(text));
            QCOMPARE(text.contains(QLatin1Char(']')), bin + 1 == bins);  // the last bin holds the maximum
        }
        // Right of the last bar, inside the axes: no bin is there.
        QVERIFY(hoverAt(view->plot(), h.upper() + (h.upper() - h.lower()) / bins / 2, middle(view->plot()->yAxis)).isEmpty());
    }

    // Zoomed out, a heatmap cell is the mean of several rows and columns: the readout names them
    // all, and its value is their mean, computed here from the dequantized weights.
    void heatmapCellNamesItsRowsAndTheirMean()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        const gguf::TensorInfo* tensor = model->findTensor("token_embd.weight");
        QVERIFY(tensor);
        JobProgressBar progress;
        auto* heatmap = new HeatmapView(&progress);
        Shown shown(heatmap, 360, 300);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        QSignalSpy ready(heatmap, &HeatmapView::heatmapReady);
        heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(ready.wait(kJobTimeoutMs));
        const gguf::HeatmapGrid& grid = heatmap->grid();
        QVERIFY2(grid.rows < tensor->rowCount(), "the window is small enough for cells of several rows");
        const std::vector<float> values = dequantizeWhole(*tensor);
        const std::uint64_t rowLength = tensor->ne[0];
        // A cell of several rows; its columns may be one ("column 7") or several ("columns 6–9").
        const QRegularExpression where(QStringLiteral("rows (\\d+)\u2013(\\d+), columns? (\\d+)(?:\u2013(\\d+))?: mean (\\S+)"));
        for (const double fraction : {0.1, 0.5, 0.93}) {
            const double row = fraction * static_cast<double>(tensor->rowCount());
            const double column = (1.0 - fraction) * static_cast<double>(rowLength);
            const QString text = hoverAt(heatmap->plot(), column, row);
            const QRegularExpressionMatch match = where.match(text);
            QVERIFY2(match.hasMatch(), qPrintable(text));
            const std::uint64_t firstRow = match.captured(1).toULongLong(), lastRow = match.captured(2).toULongLong();
            const std::uint64_t firstColumn = match.captured(3).toULongLong();
            const std::uint64_t lastColumn = match.captured(4).isEmpty() ? firstColumn : match.captured(4).toULongLong();
            QVERIFY2(lastRow > firstRow && std::fabs(row - (firstRow + lastRow) / 2.0) <= static_cast<double>(lastRow - firstRow + 1), qPrintable(text));
            double sum = 0.0;
            for (std::uint64_t r = firstRow; r <= lastRow; ++r)
                for (std::uint64_t c = firstColumn; c <= lastColumn; ++c)
                    sum += values[r * rowLength + c];
            const double mean = sum / static_cast<double>((lastRow - firstRow + 1) * (lastColumn - firstColumn + 1));
            QVERIFY2(std::fabs(match.captured(5).toDouble() - mean) <= 1e-6 * std::max(1.0, std::fabs(mean)) + 1e-7, qPrintable(text));
        }
    }

    // The block-scale map: the cell's row and sub-block column, and the scale the overview holds.
    void blockScaleMapNamesItsCell()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        JobProgressBar progress;
        auto* view = new BlockScalesView(&progress);
        Shown shown(view);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        QSignalSpy ready(view, &BlockScalesView::overviewReady);
        view->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(ready.wait(kJobTimeoutMs));
        view->plotTabs()->setCurrentWidget(view->heatmapPlot());
        const gguf::ScaleOverview& o = *view->overview();
        // More rows than pixels: the pointer lands within a row of the one aimed at; the readout
        // must name a row near it and hold that row's scale.
        const std::uint32_t aim = o.gridRows / 3;
        const std::uint32_t column = o.gridColumns - 1;
        const QString text = hoverAt(view->heatmapPlot(), column, aim);
        const QRegularExpressionMatch match = QRegularExpression(QStringLiteral("^row (\\d+), sub-block column (\\d+)\n")).match(text);
        QVERIFY2(match.hasMatch(), qPrintable(text));
        const std::uint32_t row = match.captured(1).toUInt();
        QVERIFY2(row + 1 >= aim && row <= aim + 1, qPrintable(text));
        QCOMPARE(match.captured(2).toUInt(), column);
        // The float to its last digit: the printed shortest form reads back as the same float.
        QCOMPARE(static_cast<float>(numberAfter(text, QStringLiteral("effective scale:"))), o.grid[static_cast<std::size_t>(row) * o.gridColumns + column]);
        // The scale histogram's bins count sub-blocks.
        const gguf::Histogram& h = *o.scaleHistogram;
        const std::uint32_t fullest = static_cast<std::uint32_t>(std::max_element(h.counts().begin(), h.counts().end()) - h.counts().begin());
        view->plotTabs()->setCurrentWidget(view->histogramPlot());
        const double width = (h.upper() - h.lower()) / static_cast<double>(h.counts().size());
        const QString bin = hoverAt(view->histogramPlot(), h.binLower(fullest) + width / 2, middle(view->histogramPlot()->yAxis));
        QVERIFY2(bin.contains(QStringLiteral("effective scales in [")) && bin.contains(QStringLiteral("\n%1 sub-blocks").arg(h.counts()[fullest])), qPrintable(bin));
    }

    // An expert tile of a reduced grid: 10 rows in 3 cells (0–2, 3–5, 6–9), 4 columns in 2.
    void expertTileNamesTheRowsOfACell()
    {
        auto* tile = new ExpertTile(5);
        Shown shown(tile, 240, 240);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        gguf::HeatmapGrid grid;
        grid.region = {0, 10, 0, 4};
        grid.rows = 3;
        grid.columns = 2;
        grid.aggregate = gguf::CellAggregate::AbsMax;
        tile->setHeatmap(grid, std::make_shared<const std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5.5f, 6}));
        auto* plot = tile->findChild<QCustomPlot*>();
        QCOMPARE(hoverAt(plot, 2.6, 4.2), QStringLiteral("expert 5, rows 3\u20135, columns 2\u20133\nmax |value|: 4"));
        QCOMPARE(hoverAt(plot, 0.2, 9.0), QStringLiteral("expert 5, rows 6\u20139, columns 0\u20131\nmax |value|: 5.5"));
    }

    // The expert grid's shared colour bar: the weight at the pointer on the bar, and the range
    // every tile's colours span (the largest |cell| shown); nothing off the bar.
    void expertColourBarNamesTheWeight()
    {
        auto* grid = new ExpertGridView;
        Shown shown(grid, 640, 420);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        grid->setExperts({0, 1});
        gguf::HeatmapGrid cells;
        cells.region = {0, 2, 0, 2};
        cells.rows = 2;
        cells.columns = 2;
        grid->showHeatmap(1, cells, std::make_shared<const std::vector<float>>(std::vector<float>{0.5f, -2.0f, 1.0f, 0.25f}));
        QCOMPARE(grid->colorLimit(), 2.0);
        auto* plot = grid->findChild<QCustomPlot*>(QStringLiteral("expertColorScale"));
        QVERIFY(plot);
        auto* scale = plot->findChild<QCPColorScale*>();
        QVERIFY(scale);
        QCoreApplication::processEvents();
        plot->replot();
        const QRect bar = scale->axis()->axisRect()->rect();
        const int x = static_cast<int>(std::lround(scale->axis()->coordToPixel(1.0)));
        QTest::mouseMove(plot, QPoint(x, bar.center().y()));
        const QString text = plotreadout::current(plot);
        QVERIFY2(text.endsWith(QStringLiteral("\n(the colour scale of every tile: -2 to 2)")), qPrintable(text));
        const double shownWeight = numberAfter(text, QStringLiteral("weight"));
        QCOMPARE(shownWeight, plotreadout::number(scale->axis()->pixelToCoord(x), false).toDouble());
        QVERIFY(std::abs(shownWeight - 1.0) < 4.0 / bar.width());  // a pixel's worth of the ±2 range
        QTest::mouseMove(plot, QPoint(x, bar.bottom() + 20));
        QVERIFY(plotreadout::current(plot).isEmpty());
    }

    // The per-layer diff chart: the bar's layer and figure; no bar (a layer whose tensors kept
    // their bytes) reads as nothing, not as a neighbour; "other" names the tensors outside.
    void layerDiffBarNamesItsLayer()
    {
        gguf::ModelDiff diff;
        auto layer = [](std::optional<std::uint32_t> index, std::uint64_t count, double relativeRmse) {
            gguf::LayerDifference difference;
            difference.layer = index;
            difference.metrics.count = count;
            difference.metrics.relativeRmse = relativeRmse;
            return difference;
        };
        diff.layers = {layer(0, 10, 0.125), layer(1, 0, 0.0), layer(2, 10, 0.375), layer(std::nullopt, 4, 0.0625)};
        auto* chart = new LayerDiffChart;
        Shown shown(chart);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        chart->setDiff(&diff);
        QCustomPlot* plot = chart->plot();
        QCOMPARE(hoverAt(plot, 2.1, 0.05), QStringLiteral("blk.2: its compared tensors (B against A)\nRelative RMSE: 0.375"));
        QCOMPARE(hoverAt(plot, 0.0, 0.05), QStringLiteral("blk.0: its compared tensors (B against A)\nRelative RMSE: 0.125"));
        QVERIFY(hoverAt(plot, 1.0, 0.05).isEmpty());
        QCOMPARE(hoverAt(plot, 3.0, 0.05), QStringLiteral("other: the tensors outside the layers (B against A)\nRelative RMSE: 0.0625"));
    }

    // The Output tab's drift chart: one line per model at the layer under the pointer.
    void driftChartNamesLayerAndModels()
    {
        gguf::OutputRunResult result;
        result.labels = {"a", "b"};
        result.comparisons.resize(2);
        for (std::size_t m = 0; m < 2; ++m) {
            result.comparisons[m].layers.resize(4);
            for (std::size_t l = 0; l < 4; ++l)
                result.comparisons[m].layers[l].relativeRmse = 0.001 * static_cast<double>((m + 1) * (l + 1));
        }
        result.comparisons[1].layers[0].relativeRmse = 0.0;
        auto* drift = new QCustomPlot;
        Shown shown(drift);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        setUpDriftPlot(drift);
        drawDrift(drift, result, {QStringLiteral("Q4_K"), QStringLiteral("Q8_0")}, {});
        QCOMPARE(hoverAt(drift, 2.3, middle(drift->yAxis)), QStringLiteral("blk.2 output: residual stream relative RMSE\nQ4_K: 0.003\nQ8_0: 0.006"));
        QCOMPARE(hoverAt(drift, -0.2, middle(drift->yAxis)), QStringLiteral("blk.0 output: residual stream relative RMSE\nQ4_K: 0.001\nQ8_0: 0 (drawn at 1e-12)"));
    }

    // The Output tab's KL divergence histogram: the bin's edges in nats and its positions. (One
    // window at a time: the pointer is the screen's, and two windows would stack under it.)
    void kldHistogramNamesTheBin()
    {
        gguf::OutputComparison comparison;
        comparison.kld.maximum = 3.0;
        for (const double kld : {0.05, 0.06, 1.55, 3.0}) {
            gguf::PositionMetrics position;
            position.kld = kld;
            comparison.positions.push_back(position);
        }
        auto* kld = new QCustomPlot;
        Shown shownKld(kld);
        QVERIFY(QTest::qWaitForWindowExposed(&shownKld.window));
        setUpKldHistogram(kld);
        drawKldHistogram(kld, comparison, QStringLiteral("Q4_K"), QBrush(Qt::blue));
        QCOMPARE(hoverAt(kld, 0.04, 0.5), QStringLiteral("KL divergence in [0, 0.1) nats\nQ4_K: 2 positions"));
        QCOMPARE(hoverAt(kld, 1.52, 0.5), QStringLiteral("KL divergence in [1.5, 1.6) nats\nQ4_K: 1 position"));
        QCOMPARE(hoverAt(kld, 2.97, 0.5), QStringLiteral("KL divergence in [2.9, 3] nats\nQ4_K: 1 position"));
    }

    // The planner's size/error plot: the point under the pointer (a preset, the plan, a frontier
    // step) gives its tip; between points, nothing.
    void frontierPointGivesItsTip()
    {
        constexpr double kMiB = 1024.0 * 1024.0;
        FrontierData data;
        data.valueLabel = QStringLiteral("weight error");
        data.frontier = {{1.0 * kMiB, 0.5, {}, QStringLiteral("frontier at 1 MiB")},
                         {2.0 * kMiB, 0.1, {}, QStringLiteral("frontier at 2 MiB")},
                         {4.0 * kMiB, 0.01, {}, QStringLiteral("frontier at 4 MiB")}};
        data.presets = {{3.0 * kMiB, 0.2, QStringLiteral("Q3_K_M"), QStringLiteral("Q3_K_M: 3 MiB, error 0.2")}};
        data.plan = {{2.5 * kMiB, 0.05, {}, QStringLiteral("the plan: 2.5 MiB, error 0.05")}};
        data.planName = QStringLiteral("plan");
        auto* frontier = new FrontierPlot;
        Shown shown(frontier);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        frontier->show(data);
        QCustomPlot* plot = frontier->plot();
        QCOMPARE(hoverAt(plot, 3.0, 0.2), QStringLiteral("Q3_K_M: 3 MiB, error 0.2"));
        QCOMPARE(hoverAt(plot, 2.5, 0.05), QStringLiteral("the plan: 2.5 MiB, error 0.05"));
        QCOMPARE(hoverAt(plot, 4.0, 0.01), QStringLiteral("frontier at 4 MiB"));
        QVERIFY(hoverAt(plot, 1.5, 0.02).isEmpty());
    }

    // The Compare page's block scale against error scatter: the block under the pointer by its
    // index and weights, with its scale and error as blockErrors computes them here.
    void blockScatterNamesTheBlock()
    {
        auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        auto q4k = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(f32 && q4k);
        auto* page = new ComparePage({f32, q4k}, {});
        QSignalSpy compared(page, &ComparePage::comparisonFinished);
        Shown shown(page, 1200, 900);
        QVERIFY(compared.wait(kJobTimeoutMs));
        QVERIFY(QTest::qWaitForWindowExposed(&shown.window));
        const gguf::ModelComparison& comparison = *page->comparison();
        std::size_t row = comparison.rows().size();
        for (std::size_t r = 0; r < comparison.rows().size(); ++r)
            if (comparison.rows()[r].reference->name == "blk.0.attn_q.weight")
                row = r;
        QVERIFY(row < comparison.rows().size());
        TensorErrorView* view = page->tensorView();
        auto* tabs = page->findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        QVERIFY(tabs);
        tabs->setCurrentWidget(view);
        view->setColumn(0);
        view->setTensorRow(row);
        QTRY_VERIFY_WITH_TIMEOUT(view->scatterPlot()->graphCount() == 1 && view->scatterPlot()->graph(0)->dataCount() == 256, kJobTimeoutMs);

        gguf::BlockErrorPoints points;
        QVERIFY(gguf::blockErrors(comparison, row, 0, {0, comparison.rows()[row].reference->elementCount()}, points));
        QCOMPARE(points.blockSize, 256u);
        const auto worst = static_cast<std::size_t>(std::max_element(points.rmsError.begin(), points.rmsError.end()) - points.rmsError.begin());
        const QString expected = QStringLiteral("block %1 (weights %2\u2013%3)\nblock scale: %4\nRMS error: %5")
                                     .arg(worst)
                                     .arg(worst * 256)
                                     .arg(worst * 256 + 255)
                                     .arg(plotreadout::number(points.scales[worst]), plotreadout::number(points.rmsError[worst]));
        QCOMPARE(hoverAt(view->scatterPlot(), points.scales[worst], points.rmsError[worst]), expected);
        const QCPRange x = view->scatterPlot()->xAxis->range();
        const QCPRange y = view->scatterPlot()->yAxis->range();
        QVERIFY(hoverAt(view->scatterPlot(), x.lower + x.size() * 0.01, y.upper - y.size() * 0.01).isEmpty());
    }
};

QTEST_MAIN(TestGuiPlotReadout)
#include "tst_gui_plot_readout.moc"
