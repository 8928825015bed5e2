// The compare page, compare dialog and convert dialog driven offscreen on the tiny-llama
// fixtures: table figures against runComparison, file column against the in-memory simulation,
// per-layer chart, error heatmap against dequantizeRows of both files, exports, conversion.

#include "ui/session/BackgroundJob.h"
#include "ui/compare/ComparePage.h"
#include "ui/compare/CompareDialog.h"
#include "ui/session/ComparisonMetric.h"
#include "ui/session/ComparisonRun.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/session/ComparisonTotalsModel.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/shell/ConvertDialog.h"
#include "core/gguf/Dequantize.h"
#include "ui/compare/ErrorHeatmapView.h"
#include "core/gguf/ByteRangeSource.h"
#include "core/gguf/GgufFile.h"
#include "core/gguf/MappedFile.h"
#include "Screenshot.h"
#include "Fixtures.h"
#include "IdleWatch.h"
#include "ui/compare/LayerErrorChart.h"
#include "OpenFixture.h"
#include "ui/compare/TensorErrorView.h"
#include "Waits.h"

#include <QAbstractItemModelTester>
#include <QBoxLayout>
#include <QSpinBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QGuiApplication>
#include <QScopeGuard>
#include <QStyleHints>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <qcustomplot.h>

#include <cstring>

using namespace testsupport;

namespace {

// The bytes of a file, served as a remote file whose server stops answering past `limit`.
class StopsAnswering final : public gguf::ByteRangeSource {
public:
    StopsAnswering(QByteArray bytes, std::uint64_t limit) : m_bytes(std::move(bytes)), m_limit(limit) {}
    std::uint64_t size() const override { return static_cast<std::uint64_t>(m_bytes.size()); }
    gguf::Status read(const std::vector<gguf::ByteRange>& ranges) override
    {
        for (const gguf::ByteRange& range : ranges) {
            if (range.offset + range.out.size() > m_limit)
                return gguf::Error{"cannot reach the server", gguf::Error::kNoOffset, {}};
            std::memcpy(range.out.data(), m_bytes.constData() + range.offset, range.out.size());
        }
        return gguf::Ok{};
    }
    gguf::Status checkUnchanged() const override { return gguf::Ok{}; }
    std::uint64_t preferredReadSize() const override { return 4096; }  // small reads: the tensors before the limit read

private:
    QByteArray m_bytes;
    std::uint64_t m_limit;
};
constexpr int kJobTimeoutMs = testsupport::kHangGuardMs;

std::uint32_t typeId(const char* name)
{
    return gguf::findTypeByName(name)->id;
}

bool sameMetrics(const gguf::ErrorMetrics& a, const gguf::ErrorMetrics& b)
{
    const std::vector<double> x = gguf::errorMetricValues(a);
    const std::vector<double> y = gguf::errorMetricValues(b);
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))))
            return false;
    return true;
}

// F32 reference with the Q4_K file as column 0 and q4_K simulated as column 1.
std::unique_ptr<ComparePage> finishedPage()
{
    auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    auto q4k = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
    if (!f32 || !q4k)
        return nullptr;  // the failure is recorded; callers QVERIFY the page
    auto page = std::make_unique<ComparePage>(std::vector<std::shared_ptr<const gguf::Model>>{f32, q4k},
                                              std::vector<std::uint32_t>{typeId("q4_K")});
    QSignalSpy finished(page.get(), &ComparePage::comparisonFinished);
    if (!finished.wait(kJobTimeoutMs) || !finished.first().at(0).toBool())
        return nullptr;
    return page;
}

int rowOf(const gguf::ModelComparison& comparison, std::string_view name)
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == name)
            return static_cast<int>(r);
    return -1;
}
// token_embd alone (131072 values, 512 rows of 256) with q4_K simulated: one cell.
std::shared_ptr<const gguf::ModelComparison> oneTensorComparison()
{
    auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
    if (!f32)
        return nullptr;
    gguf::ComparisonOptions options;
    options.simulatedTypes = {typeId("q4_K")};
    options.includeTensor = [](std::string_view name) { return name == "token_embd.weight"; };
    auto comparison = gguf::ModelComparison::create({f32}, options);
    if (!comparison)
        return nullptr;
    return std::make_shared<const gguf::ModelComparison>(std::move(*comparison));
}
}  // namespace

class TestGuiCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // The compare dialog remembers its list in QSettings: start every run from none. (Not
        // QStandardPaths test mode: that also resets the result-cache budget, under which
        // errorHeatmapEqualsIndependentDifference waits forever.)
        QSettings().remove(QStringLiteral("compareDialog"));
    }

    void tableModelPassesTester()
    {
        ComparisonTableModel model;
        QAbstractItemModelTester emptyTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto page = finishedPage();
        QVERIFY(page);
        QAbstractItemModelTester tester(page->tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(page->proxyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(page->tableModel()->rowCount(), 21);
        QCOMPARE(page->tableModel()->columnCount(), ComparisonTableModel::FixedColumnCount + 2);
        for (int metric = 0; metric < static_cast<int>(comparisonMetrics().size()); ++metric)
            page->tableModel()->setMetric(metric);
        page->proxyModel()->sort(ComparisonTableModel::FixedColumnCount, Qt::DescendingOrder);
        page->proxyModel()->setFilterRegularExpression(QStringLiteral("attn_[qk]"));
        QCOMPARE(page->proxyModel()->rowCount(), 4);
    }

    // Same figures as the CLI's runComparison, and ggml's Q4_K file equals the simulation.
    void figuresEqualRunComparisonAndSimulation()
    {
        auto page = finishedPage();
        QVERIFY(page);
        const auto expected = gguf::runComparison(*page->comparison());
        QVERIFY(expected);
        const gguf::ComparisonResults& shown = *page->results();
        std::size_t compared = 0;
        for (std::size_t r = 0; r < expected->cells.size(); ++r) {
            for (std::size_t c = 0; c < 2; ++c) {
                QCOMPARE(shown.cells[r][c].has_value(), expected->cells[r][c].has_value());
                if (expected->cells[r][c])
                    QVERIFY(sameMetrics(*shown.cells[r][c], *expected->cells[r][c]));
            }
            if (shown.cells[r][0] && shown.cells[r][1]) {
                QVERIFY2(sameMetrics(*shown.cells[r][0], *shown.cells[r][1]), page->comparison()->rows()[r].reference->name.data());
                ++compared;
            }
        }
        QVERIFY(compared >= 16);
        for (std::size_t c = 0; c < 2; ++c)
            QVERIFY(sameMetrics(shown.columnTotals[c], expected->columnTotals[c]));
        // What the table shows is the figure, numerically sortable.
        const int row = rowOf(*page->comparison(), "blk.1.ffn_down.weight");
        page->tableModel()->setMetric(1);  // RMSE
        const QModelIndex cell = page->tableModel()->index(row, ComparisonTableModel::FixedColumnCount);
        QCOMPARE(cell.data(ComparisonTableModel::SortRole).toDouble(), expected->cells[static_cast<std::size_t>(row)][0]->rmse);
    }

    void layerChartHasTwoLayersPerColumn()
    {
        auto page = finishedPage();
        QVERIFY(page);
        QCustomPlot* plot = page->layerChart()->plot();
        QCOMPARE(plot->graphCount(), 2);
        for (int g = 0; g < 2; ++g)
            QCOMPARE(plot->graph(g)->dataCount(), 2);
        page->layerChart()->setKind(QStringLiteral("ffn_down"));
        page->layerChart()->setMetric(1);  // RMSE of the one ffn_down tensor per layer
        const int row = rowOf(*page->comparison(), "blk.1.ffn_down.weight");
        QCOMPARE(plot->graph(0)->data()->at(1)->value, (*page->results()).cells[static_cast<std::size_t>(row)][0]->rmse);
    }

    void errorHeatmapEqualsIndependentDifference()
    {
        auto page = finishedPage();
        QVERIFY(page);
        const int row = rowOf(*page->comparison(), "blk.0.attn_q.weight");
        ErrorHeatmapView* heatmap = page->tensorView()->heatmap();
        heatmap->setMinimumCells(256);
        QSignalSpy ready(heatmap, &ErrorHeatmapView::heatmapReady);
        // The histograms start with the row (not the column) and may finish before the heatmap.
        QSignalSpy histogram(page->tensorView(), &TensorErrorView::histogramReady);
        page->tensorView()->setColumn(0);
        page->tensorView()->setTensorRow(static_cast<std::size_t>(row));
        QVERIFY(ready.wait(kJobTimeoutMs));
        QCOMPARE(heatmap->grid().rows, 256u);
        QCOMPARE(heatmap->grid().columns, 256u);

        auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(f32);
        auto q4k = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(q4k);
        const gguf::TensorInfo& a = *f32->findTensor("blk.0.attn_q.weight");
        const gguf::TensorInfo& b = *q4k->findTensor("blk.0.attn_q.weight");
        std::vector<float> x(a.elementCount()), y(b.elementCount());
        QVERIFY(gguf::dequantizeRows(a, 0, 256, x));
        QVERIFY(gguf::dequantizeRows(b, 0, 256, y));
        const std::vector<float>& cells = heatmap->cells();
        QCOMPARE(cells.size(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
            if (cells[i] != y[i] - x[i])
                QFAIL(qPrintable(QStringLiteral("element %1: %2 != %3").arg(i).arg(double(cells[i])).arg(double(y[i] - x[i]))));

        QSignalSpy scatter(page->tensorView(), &TensorErrorView::scatterReady);
        page->tensorView()->setColumn(1);  // the simulated column: scatter from in-memory blocks
        QVERIFY(histogram.count() > 0 || histogram.wait(kJobTimeoutMs));
        QVERIFY(scatter.count() > 0 || scatter.wait(kJobTimeoutMs));
        QCOMPARE(page->tensorView()->histogramPlot()->graphCount(), 2);
        QCOMPARE(page->tensorView()->scatterPlot()->graph(0)->dataCount(), 256);  // 65536 weights / 256 per q4_K block
    }

    // With the Q2_K or Q4_K column (files or simulated) the error heatmap
    // recomputed forever: the progress bar moved the layout, the resized heatmap recomputed,
    // whose progress bar moved the layout again. A finished view starts nothing by itself.
    void finishedErrorHeatmapStaysFinished()
    {
        std::vector<std::shared_ptr<const gguf::Model>> models;
        for (const char* name : {"tiny-llama-F32.gguf", "tiny-llama-Q8_0.gguf", "tiny-llama-Q4_K.gguf", "tiny-llama-Q2_K.gguf"}) {
            models.push_back(openFixtureModel(QString::fromLatin1(name)));
            QVERIFY(models.back());
        }
        ComparePage page(models, {typeId("q2_K"), typeId("q4_K")});
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(finished.first().at(0).toBool());
        page.resize(1600, 1000);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        QVERIFY(tabs);
        tabs->setCurrentWidget(page.tensorView());
        ErrorHeatmapView* heatmap = page.tensorView()->heatmap();
        page.tensorView()->setTensorRow(static_cast<std::size_t>(rowOf(*page.comparison(), "token_embd.weight")));
        // Columns: Q8_0, Q4_K and Q2_K files, then q2_K and q4_K simulated.
        for (int column : {1, 2, 3, 4, 0}) {
            QSignalSpy ready(heatmap, &ErrorHeatmapView::heatmapReady);
            page.tensorView()->setColumn(column);
            QVERIFY(ready.count() > 0 || ready.wait(kJobTimeoutMs));
            QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing(), kJobTimeoutMs);
            ready.clear();
            const int starts = busyStartsWhileIdle([heatmap] { return heatmap->isComputing(); });
            QVERIFY2(starts == 0 && ready.isEmpty(),
                     qPrintable(QStringLiteral("column %1: %2 job(s) started and %3 heatmap(s) shown with no input")
                                    .arg(column).arg(starts).arg(ready.count())));
        }
    }

    // Cancel stays cancelled, says so, and a click on the placeholder computes.
    void cancelledErrorHeatmapStaysCancelled()
    {
        auto page = finishedPage();
        QVERIFY(page);
        page->resize(1600, 1000);
        page->show();
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        auto* tabs = page->findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        QVERIFY(tabs);
        tabs->setCurrentWidget(page->tensorView());
        ErrorHeatmapView* heatmap = page->tensorView()->heatmap();
        QCOMPARE(heatmap->state(), ZoomableMatrixView::State::Empty);  // item 11: a placeholder, not empty axes
        QVERIFY(heatmap->placeholderText().contains(QLatin1String("Select a tensor")));
        QVERIFY(page->tensorView()->histogramPlaceholderText().contains(QLatin1String("Select a tensor")));
        QVERIFY(page->tensorView()->scatterPlaceholderText().contains(QLatin1String("Select a tensor")));
        page->tensorView()->setColumn(1);
        page->tensorView()->setTensorRow(static_cast<std::size_t>(rowOf(*page->comparison(), "blk.1.ffn_down.weight")));
        QVERIFY(heatmap->isComputing());
        // Clicked before the job's end reaches the GUI thread, so the job ends cancelled.
        auto* cancel = page->findChild<QPushButton*>(QStringLiteral("cancelJobButton"));
        QVERIFY(cancel);
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing(), kJobTimeoutMs);
        QCOMPARE(heatmap->state(), ZoomableMatrixView::State::Cancelled);
        QVERIFY2(heatmap->placeholderText().contains(QLatin1String("click to compute")), qPrintable(heatmap->placeholderText()));
        QVERIFY(heatmap->cells().empty());  // item 11: nothing of the previous tensor is left on screen
        // The histograms and the scatter were cancelled with it (their ends may come later), and say so.
        QTRY_VERIFY_WITH_TIMEOUT(page->tensorView()->histogramPlaceholderText().contains(QLatin1String("Cancelled")), kJobTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(page->tensorView()->scatterPlaceholderText().contains(QLatin1String("Cancelled")), kJobTimeoutMs);
        const int started = heatmap->jobsStarted();
        QCOMPARE(busyStartsWhileIdle([heatmap] { return heatmap->isComputing(); }), 0);
        QCOMPARE(heatmap->jobsStarted(), started);
        QCOMPARE(heatmap->state(), ZoomableMatrixView::State::Cancelled);

        QSignalSpy ready(heatmap, &ErrorHeatmapView::heatmapReady);
        QTest::mouseClick(heatmap->placeholder(), Qt::LeftButton);
        QVERIFY(ready.count() > 0 || ready.wait(kJobTimeoutMs));
        QCOMPARE(heatmap->state(), ZoomableMatrixView::State::Shown);
        QCOMPARE(heatmap->placeholderText(), QString());
        QCOMPARE(heatmap->grid().region.rowEnd, 256u);
    }

    // For the README: the F32 model against ggml's Q8_0, Q4_K and Q2_K files, each tab.
    void screenshotsOfTheComparePage()
    {
        std::vector<std::shared_ptr<const gguf::Model>> models;
        for (const char* name : {"tiny-llama-F32.gguf", "tiny-llama-Q8_0.gguf", "tiny-llama-Q4_K.gguf", "tiny-llama-Q2_K.gguf"}) {
            models.push_back(openFixtureModel(QString::fromLatin1(name)));
            QVERIFY(models.back());
        }
        ComparePage page(models, {});
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(finished.first().at(0).toBool());
        page.resize(1280, 760);
        page.show();
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        QVERIFY(tabs);
        auto save = [&](const QString& name) { QVERIFY(testsupport::saveScreenshot(page, name)); };
        save(QStringLiteral("compare-table"));
        tabs->setCurrentIndex(1);
        save(QStringLiteral("compare-per-layer"));

        QSignalSpy histogram(page.tensorView(), &TensorErrorView::histogramReady);
        QSignalSpy ready(page.tensorView()->heatmap(), &ErrorHeatmapView::heatmapReady);
        tabs->setCurrentIndex(2);
        page.tensorView()->setColumn(2);  // Q2_K
        page.tensorView()->setTensorRow(static_cast<std::size_t>(rowOf(*page.comparison(), "blk.1.ffn_down.weight")));
        QVERIFY(ready.count() > 0 || ready.wait(kJobTimeoutMs));
        QVERIFY(histogram.count() > 0 || histogram.wait(kJobTimeoutMs));
        save(QStringLiteral("compare-tensor"));
    }

    void exportsRoundTrip()
    {
        auto page = finishedPage();
        QVERIFY(page);
        QTemporaryDir dir;
        const QString csvPath = dir.filePath(QStringLiteral("compare.csv"));
        const QString jsonPath = dir.filePath(QStringLiteral("compare.json"));
        QCOMPARE(page->exportCsv(csvPath), QString());
        QCOMPARE(page->exportJson(jsonPath), QString());

        const QStringList lines = QString::fromUtf8(readWholeFile(csvPath)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        // 21 tensors and 13 model-wide lines (all tensors, 12 kinds), 2 columns each.
        QCOMPARE(page->totalsModel()->rowCount(), 13);
        QCOMPARE(lines.size(), 1 + 21 * 2 + 13 * 2);
        const QStringList header = lines.first().split(QLatin1Char(','));
        const int rmseColumn = static_cast<int>(header.indexOf(QStringLiteral("rmse")));
        QVERIFY(rmseColumn > 0);
        const int row = rowOf(*page->comparison(), "blk.0.attn_k.weight");
        const QStringList fields = lines[1 + row * 2].split(QLatin1Char(','));
        QCOMPARE(fields[0], QStringLiteral("blk.0.attn_k.weight"));
        QCOMPARE(fields[rmseColumn].toDouble(), page->results()->cells[static_cast<std::size_t>(row)][0]->rmse);

        const QJsonDocument json = QJsonDocument::fromJson(readWholeFile(jsonPath));
        const QJsonArray tensors = json.object().value(QStringLiteral("tensors")).toArray();
        QCOMPARE(tensors.size(), 21);
        const QJsonObject result = tensors[row].toObject().value(QStringLiteral("results")).toArray()[1].toObject();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(result.value(QStringLiteral("rmse")).toDouble(), page->results()->cells[static_cast<std::size_t>(row)][1]->rmse);
        QCOMPARE(json.object().value(QStringLiteral("columns")).toArray().size(), 2);
    }

    // "all tensors" equals the CLI's totals (runComparison, what `compare`
    // prints as "all compared tensors together"); each kind row is its tensors' weights together;
    // both are in the table (under the tensors, unmoved by sorting and filtering), the CSV and
    // the JSON.
    void totalsMatchTheCliAndKindsCombineTheirTensors()
    {
        auto page = finishedPage();
        QVERIFY(page);
        const auto expected = gguf::runComparison(*page->comparison());
        QVERIFY(expected);
        ComparisonTotalsModel* totals = page->totalsModel();
        QCOMPARE(totals->rowCount(), 13);
        QCOMPARE(totals->columnCount(), page->tableModel()->columnCount());
        QCOMPARE(totals->index(0, ComparisonTableModel::TensorColumn).data().toString(), QStringLiteral("all tensors"));
        for (std::size_t c = 0; c < 2; ++c) {
            QVERIFY(sameMetrics(totals->summaries()[0].metrics[c], expected->columnTotals[c]));
            QCOMPARE(totals->summaries()[0].tensorCounts[c], expected->columnTensorCounts[c]);
        }
        int ffnDown = -1;
        for (int r = 0; r < totals->rowCount(); ++r)
            if (totals->index(r, ComparisonTableModel::KindColumn).data().toString() == QLatin1String("ffn_down"))
                ffnDown = r;
        QVERIFY(ffnDown > 0);
        QCOMPARE(totals->index(ffnDown, ComparisonTableModel::TensorColumn).data().toString(), QStringLiteral("all ffn_down"));
        // The two ffn_down tensors' errors together, from their cells' exact sums.
        const auto& a = *expected->cells[static_cast<std::size_t>(rowOf(*page->comparison(), "blk.0.ffn_down.weight"))][0];
        const auto& b = *expected->cells[static_cast<std::size_t>(rowOf(*page->comparison(), "blk.1.ffn_down.weight"))][0];
        const double rmse = std::sqrt((a.sums.sumSquaredError + b.sums.sumSquaredError) / static_cast<double>(a.count + b.count));
        const gguf::SummaryErrorMetrics& kind = totals->summaries()[static_cast<std::size_t>(ffnDown)];
        QCOMPARE(kind.tensorCounts[0], std::size_t{2});
        QCOMPARE(kind.metrics[0].count, a.count + b.count);
        QCOMPARE(kind.metrics[0].rmse, rmse);
        QCOMPARE(kind.metrics[0].maxAbsError, std::max(a.maxAbsError, b.maxAbsError));

        auto* metric = page->findChild<QComboBox*>(QStringLiteral("metricCombo"));
        QVERIFY(metric);
        metric->setCurrentIndex(1);  // RMSE
        QCOMPARE(totals->index(ffnDown, ComparisonTableModel::FixedColumnCount).data().toString(), ComparisonTableModel::metricText(rmse));
        QCOMPARE(totals->index(0, ComparisonTableModel::FixedColumnCount).data().toString(),
                 ComparisonTableModel::metricText(expected->columnTotals[0].rmse));
        // Filtering the tensors leaves the totals alone.
        page->proxyModel()->setFilterRegularExpression(QStringLiteral("attn_q"));
        QCOMPARE(totals->rowCount(), 13);
        QVERIFY(page->totalsView()->isVisibleTo(page.get()));

        QTemporaryDir dir;
        const QString csvPath = dir.filePath(QStringLiteral("compare.csv"));
        const QString jsonPath = dir.filePath(QStringLiteral("compare.json"));
        QCOMPARE(page->exportCsv(csvPath), QString());
        QCOMPARE(page->exportJson(jsonPath), QString());
        const QStringList lines = QString::fromUtf8(readWholeFile(csvPath)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList header = lines.first().split(QLatin1Char(','));
        const int rmseColumn = static_cast<int>(header.indexOf(QStringLiteral("rmse")));
        int found = 0;
        for (const QString& line : lines) {
            const QStringList fields = line.split(QLatin1Char(','));
            if (fields[0] == QLatin1String("(all tensors)") && fields[4] == QLatin1String("1")) {
                QCOMPARE(fields[rmseColumn].toDouble(), expected->columnTotals[0].rmse);
                ++found;
            }
            if (fields[0] == QLatin1String("(all ffn_down)") && fields[4] == QLatin1String("1")) {
                QCOMPARE(fields[2], QStringLiteral("ffn_down"));
                QCOMPARE(fields[rmseColumn].toDouble(), rmse);
                ++found;
            }
        }
        QCOMPARE(found, 2);
        const QJsonObject json = QJsonDocument::fromJson(readWholeFile(jsonPath)).object();
        QCOMPARE(json.value(QStringLiteral("columns")).toArray()[0].toObject().value(QStringLiteral("totals")).toObject()
                     .value(QStringLiteral("rmse")).toDouble(), expected->columnTotals[0].rmse);
        const QJsonArray kinds = json.value(QStringLiteral("kinds")).toArray();
        QCOMPARE(kinds.size(), 12);
        bool sawFfnDown = false;
        for (const QJsonValue& entry : kinds) {
            if (entry.toObject().value(QStringLiteral("kind")).toString() != QLatin1String("ffn_down"))
                continue;
            const QJsonObject first = entry.toObject().value(QStringLiteral("columns")).toArray()[0].toObject();
            QCOMPARE(first.value(QStringLiteral("tensors")).toInt(), 2);
            QCOMPARE(first.value(QStringLiteral("rmse")).toDouble(), rmse);
            sawFfnDown = true;
        }
        QVERIFY(sawFfnDown);
    }

    // Columns are named by file type (the llama-quantize preset; the file in the tooltip), and a
    // quant type has one colour whatever the column order: here the Q4_K_M file is column 1 in one
    // page, 2 in another, in Q4_K's colour, as is the simulated q4_K (dashed).
    void columnsAreNamedAndColouredByQuantType()
    {
        auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        auto q2 = openFixtureModel(QStringLiteral("tiny-llama-Q2_K.gguf"));
        QVERIFY(f32 && q4 && q2);
        ComparePage first({f32, q4, q2}, {typeId("q4_K")});
        ComparePage second({f32, q2, q4}, {});
        // Both spies before any wait: the second page may finish while the first is awaited.
        QSignalSpy firstFinished(&first, &ComparePage::comparisonFinished);
        QSignalSpy secondFinished(&second, &ComparePage::comparisonFinished);
        for (QSignalSpy* finished : {&firstFinished, &secondFinished}) {
            QVERIFY(!finished->isEmpty() || finished->wait(kJobTimeoutMs));
            QVERIFY(finished->first().at(0).toBool());
        }
        const auto title = [](ComparePage& page, int column, int role = Qt::DisplayRole) {
            return page.tableModel()->headerData(ComparisonTableModel::FixedColumnCount + column, Qt::Horizontal, role).toString();
        };
        QCOMPARE(title(first, 0), QStringLiteral("Q4_K_M"));
        QCOMPARE(title(first, 1), QStringLiteral("Q2_K"));
        QCOMPARE(title(first, 2), QStringLiteral("Q4_K (simulated)"));
        QVERIFY2(title(first, 0, Qt::ToolTipRole).contains(QLatin1String("tiny-llama-Q4_K.gguf")), qPrintable(title(first, 0, Qt::ToolTipRole)));
        QCOMPARE(title(second, 0), QStringLiteral("Q2_K"));
        QCOMPARE(title(second, 1), QStringLiteral("Q4_K_M"));

        const auto pen = [](ComparePage& page, int graph) { return page.layerChart()->plot()->graph(graph)->pen(); };
        QCOMPARE(pen(first, 0).color(), pen(second, 1).color());  // Q4_K
        QCOMPARE(pen(first, 1).color(), pen(second, 0).color());  // Q2_K
        QVERIFY(pen(first, 0).color() != pen(first, 1).color());
        QCOMPARE(pen(first, 2).color(), pen(first, 0).color());  // simulated Q4_K: the same colour, dashed
        QCOMPARE(pen(first, 2).style(), Qt::DashLine);
        QCOMPARE(pen(first, 0).color(), quantTypeColour(typeId("q4_K")));
        QCOMPARE(first.layerChart()->plot()->graph(0)->name(), QStringLiteral("Q4_K_M"));
        QVERIFY(!first.proxyModel()->headerData(ComparisonTableModel::FixedColumnCount, Qt::Horizontal, Qt::DecorationRole).isNull());
    }

    // An expert tensor opens on one expert's matrix (the exact errors of those
    // rows), and "all" shows every expert with the boundaries between them marked.
    void expertTensorsShowOneExpertOrAllWithBoundaries()
    {
        auto f16 = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(f16 && q4);
        ComparePage page({f16, q4}, {});
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kJobTimeoutMs));
        const int row = rowOf(*page.comparison(), "blk.0.ffn_down_exps.weight");
        QVERIFY(row >= 0);
        const gguf::TensorInfo& a = *f16->findTensor("blk.0.ffn_down_exps.weight");
        const gguf::TensorInfo& b = *q4->findTensor("blk.0.ffn_down_exps.weight");
        const auto columns = static_cast<std::uint64_t>(a.ne[0]);
        const auto rows = static_cast<std::uint64_t>(a.ne[1]);
        const auto experts = static_cast<int>(a.ne[2]);
        QVERIFY(experts > 1);
        TensorErrorView* view = page.tensorView();
        ErrorHeatmapView* heatmap = view->heatmap();
        heatmap->setMinimumCells(static_cast<std::uint32_t>(std::max(rows, columns)));  // one cell per weight
        QSignalSpy ready(heatmap, &ErrorHeatmapView::heatmapReady);
        view->setColumn(0);
        view->setTensorRow(static_cast<std::size_t>(row));
        QVERIFY(view->expertSpin()->isVisibleTo(view));
        QCOMPARE(view->expertSpin()->value(), 0);
        QCOMPARE(view->expertSpin()->maximum(), experts - 1);
        QVERIFY(ready.count() > 0 || ready.wait(kJobTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing(), kJobTimeoutMs);
        QCOMPARE(heatmap->grid().region.rowEnd, rows);
        QCOMPARE(heatmap->rowBoundaryCount(), std::size_t{0});

        ready.clear();
        view->setExpert(3);
        QVERIFY(ready.wait(kJobTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing(), kJobTimeoutMs);
        QCOMPARE(heatmap->grid().rows, static_cast<std::uint32_t>(rows));
        QCOMPARE(heatmap->grid().columns, static_cast<std::uint32_t>(columns));
        std::vector<float> x(rows * columns), y(rows * columns);
        QVERIFY(gguf::dequantizeRows(a, 3 * rows, 4 * rows, x));
        QVERIFY(gguf::dequantizeRows(b, 3 * rows, 4 * rows, y));
        const std::vector<float>& cells = heatmap->cells();
        QCOMPARE(cells.size(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
            if (cells[i] != y[i] - x[i])
                QFAIL(qPrintable(QStringLiteral("expert 3, element %1: %2 != %3").arg(i).arg(double(cells[i])).arg(double(y[i] - x[i]))));

        ready.clear();
        view->setExpert(-1);  // all
        QCOMPARE(view->expertSpin()->text(), QStringLiteral("all"));
        QVERIFY(ready.wait(kJobTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing(), kJobTimeoutMs);
        QCOMPARE(heatmap->grid().region.rowEnd, rows * static_cast<std::uint64_t>(experts));
        QCOMPARE(heatmap->rowBoundaryCount(), static_cast<std::size_t>(experts - 1));

        // A 2-D tensor has no expert selector.
        view->setTensorRow(static_cast<std::size_t>(rowOf(*page.comparison(), "blk.0.attn_q.weight")));
        QVERIFY(!view->expertSpin()->isVisibleTo(view));
        QCOMPARE(heatmap->rowBoundaryCount(), std::size_t{0});
    }

    void compareDialogOpensFilesInTheBackground()
    {
        CompareDialog dialog(fixturePath(QStringLiteral("tiny-llama-F16.gguf")));
        dialog.setSimulatedTypeChecked(QStringLiteral("q8_0"), true);
        dialog.setSimulatedTypeChecked(QStringLiteral("q2_K"), true);
        QCOMPARE(dialog.simulatedTypes().size(), std::size_t{2});
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.openAndAccept();
        QVERIFY(accepted.wait(kJobTimeoutMs));
        QCOMPARE(dialog.models().size(), std::size_t{1});
        ComparePage page(dialog.models(), dialog.simulatedTypes());
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(finished.first().at(0).toBool());
        QCOMPARE(page.tableModel()->columnCount(), ComparisonTableModel::FixedColumnCount + 2);
    }

    // The dialog brings back the last list and the open model joins it checked; the earlier
    // run's files stay checked only when they are the same model (architecture, tensor names),
    // otherwise they are unchecked and the note says why (they stayed checked, the open model not).
    void compareDialogChecksTheOpenFileOnlyWhenItFits()
    {
        QSettings().remove(QStringLiteral("compareDialog"));
        const QString f32 = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        const QString q2 = fixturePath(QStringLiteral("tiny-llama-Q2_K.gguf"));
        {
            CompareDialog first;
            first.addFile(f32);
            first.addFile(q2);
            QSignalSpy accepted(&first, &QDialog::accepted);
            first.openAndAccept();
            QVERIFY(accepted.wait(kJobTimeoutMs));
        }

        // An unrelated model is open (the MoE sample): listed, unchecked, with the reason.
        {
            CompareDialog dialog(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
            QSignalSpy checked(&dialog, &CompareDialog::openFileChecked);
            QVERIFY(checked.wait(kJobTimeoutMs));
            QCOMPARE(checked.first().at(0).toBool(), false);
            QCOMPARE(dialog.checkedFiles(), (QStringList{fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf"))}));
            QVERIFY2(dialog.openFileNote().contains(QLatin1String("tensors")), qPrintable(dialog.openFileNote()));
            QVERIFY2(dialog.openFileNote().contains(QLatin1String("tiny-llama-F32.gguf, tiny-llama-Q2_K.gguf")), qPrintable(dialog.openFileNote()));
            QCOMPARE(dialog.addFilesFolder(), QFileInfo(f32).absolutePath());
        }

        // Another file of the same model fits and is checked, first in the list.
        {
            const QString q4 = fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
            CompareDialog dialog(q4);
            QSignalSpy checked(&dialog, &CompareDialog::openFileChecked);
            QVERIFY(checked.wait(kJobTimeoutMs));
            QCOMPARE(checked.first().at(0).toBool(), true);
            QCOMPARE(dialog.checkedFiles(), (QStringList{q4, f32, q2}));
            QVERIFY(dialog.openFileNote().isEmpty());
        }
        QSettings().remove(QStringLiteral("compareDialog"));
    }

    // The first click selects a row and starts work whose progress bar may
    // move the table; the second click then lands on the row above. The double-click still
    // opens the row first clicked, in the Tensor tab.
    void doubleClickOpensTheClickedRowEvenWhenTheTableMoves()
    {
        auto page = finishedPage();
        QVERIFY(page);
        page->resize(1000, 700);
        page->show();
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        auto* tabs = page->findChild<QTabWidget*>();
        QVERIFY(tabs);
        QTableView* table = page->tableView();
        QCOMPARE(tabs->currentWidget()->isAncestorOf(table), true);
        const int row = 5;
        const QPoint spot = table->visualRect(page->proxyModel()->index(row, 0)).center();
        QVERIFY(table->indexAt(spot).row() == row);

        const QPoint onPage = table->viewport()->mapTo(page.get(), spot);
        // A loaded machine may take longer than a real double-click between the two clicks here.
        QStyleHints* hints = QGuiApplication::styleHints();
        const int interval = hints->mouseDoubleClickInterval();
        hints->setMouseDoubleClickInterval(600000);
        const auto restore = qScopeGuard([hints, interval] { hints->setMouseDoubleClickInterval(interval); });

        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, spot);
        QCOMPARE(table->currentIndex().row(), row);
        // What a progress bar appearing above the table does: the rows move down.
        auto* shift = new QWidget(table->parentWidget());
        shift->setFixedHeight(table->rowHeight(0) + 4);
        static_cast<QBoxLayout*>(table->parentWidget()->layout())->insertWidget(0, shift);
        QTRY_VERIFY_WITH_TIMEOUT(table->viewport()->mapFrom(page.get(), onPage) != spot, kHangGuardMs);
        const QPoint moved = table->viewport()->mapFrom(page.get(), onPage);  // the same spot on screen
        QCOMPARE(table->indexAt(moved).row(), row - 1);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, moved);
        QCOMPARE(table->currentIndex().row(), row);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(page->tensorView()));
    }

    void convertDialogWritesQ8_0()
    {
        QTemporaryDir dir;
        const auto opened = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(opened);
        ConvertDialog dialog(opened);
        dialog.setTargetType(QStringLiteral("q8_0"));
        QVERIFY(dialog.previewTree()->topLevelItemCount() == 21);
        const QString output = dir.filePath(QStringLiteral("out-q8_0.gguf"));
        dialog.setOutputPath(output);
        QSignalSpy finished(&dialog, &ConvertDialog::conversionFinished);
        dialog.startConversion();
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        auto reopened = gguf::Model::open(output.toStdString());
        QVERIFY(reopened);
        QCOMPARE(reopened.value()->findTensor("blk.0.attn_q.weight")->typeId, typeId("q8_0"));
        QCOMPARE(reopened.value()->findTensor("blk.0.attn_norm.weight")->typeId, typeId("f32"));

        // Writing over the input is refused by the core, and the dialog says so.
        dialog.setOutputPath(fixturePath(QStringLiteral("tiny-llama-F32.gguf")));
        finished.clear();
        dialog.startConversion();
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY(!finished.first().at(1).toString().isEmpty());
    }
    // The GUI's run splits one tensor into the engine's ranges, one job chunk each, and gives
    // the CLI's figures bit for bit.
    void comparisonRunSplitsOneTensorLikeTheCli()
    {
        const auto comparison = oneTensorComparison();
        QVERIFY(comparison);
        constexpr std::uint64_t kRowRanges = 256;
        ComparisonRun run(comparison, nullptr, kRowRanges);
        std::shared_ptr<const gguf::ComparisonResults> shown;
        connect(&run, &ComparisonRun::finished, this, [&shown](std::shared_ptr<const gguf::ComparisonResults> results) { shown = std::move(results); });
        run.start();
        QVERIFY(run.job());
        QCOMPARE(run.job()->chunkCount(), 512);
        QTRY_VERIFY_WITH_TIMEOUT(shown != nullptr, kJobTimeoutMs);
        gguf::ComparisonRunOptions options;
        options.chunkElements = kRowRanges;
        const auto expected = gguf::runComparison(*comparison, options);
        QVERIFY(expected && shown->cells[0][0]);
        QVERIFY(sameMetrics(*shown->cells[0][0], *expected->cells[0][0]));
        QVERIFY(sameMetrics(shown->columnTotals[0], expected->columnTotals[0]));
    }

    // A run that fails part way (a remote file whose server stops answering past some byte)
    // keeps the cells it finished; the others say they will not come ("—"), none waits forever
    // ("…"), and the status says what the totals cover.
    void failedRunKeepsTheCellsItFinished()
    {
        const QString path = fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        auto local = openModelAt(path);
        QVERIFY(local);
        const std::uint64_t dataOffset = local->primary().dataOffset();
        const std::uint64_t limit = dataOffset + (static_cast<std::uint64_t>(bytes.size()) - dataOffset) * 3 / 5;
        auto mapped = gguf::MappedFile::openFrom("tiny-llama-Q4_K.gguf", std::make_shared<StopsAnswering>(bytes, limit));
        QVERIFY2(mapped, mapped ? "" : mapped.error().toString().c_str());
        std::shared_ptr<const gguf::MappedFile> shared = std::move(mapped.value());
        auto half = gguf::Model::open("tiny-llama-Q4_K.gguf", [shared](const std::string&) { return gguf::GgufFile::parse(shared); });
        QVERIFY2(half, half ? "" : half.error().toString().c_str());
        auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(f32);
        ComparePage page({f32, half.value()}, {});
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kJobTimeoutMs));
        QVERIFY(!finished.first().at(0).toBool());
        QAbstractItemModel* table = page.proxyModel();
        int figures = 0;
        int dashes = 0;
        for (int row = 0; row < table->rowCount(); ++row) {
            const QString text = table->index(row, ComparisonTableModel::FixedColumnCount).data().toString();
            QVERIFY2(text != QStringLiteral("…"), qPrintable(table->index(row, 0).data().toString()));
            if (text == QStringLiteral("—"))
                ++dashes;
            else if (!text.isEmpty() && (text[0].isDigit() || text[0] == QLatin1Char('-')))
                ++figures;
        }
        QVERIFY2(figures > 0 && dashes > 0, qPrintable(QStringLiteral("%1 figures, %2 dashes").arg(figures).arg(dashes)));
        auto* status = page.findChild<QLabel*>(QStringLiteral("statusLabel"));
        QVERIFY(status);
        QVERIFY2(status->text().contains(QStringLiteral(". %1 cell(s) computed before it stopped").arg(figures)), qPrintable(status->text()));
    }

    // Cancelling while ranges of a cell wait for their turn ends the run, and leaves the pool
    // free: a new run finishes.
    void cancelledRunLeavesThePoolFree()
    {
        const auto comparison = oneTensorComparison();
        QVERIFY(comparison);
        ComparisonRun cancelled(comparison, nullptr, 256);
        QSignalSpy failed(&cancelled, &ComparisonRun::failed);
        cancelled.start();
        cancelled.cancel();  // the pool threads are already in the first ranges, or about to be
        QVERIFY(failed.wait(kJobTimeoutMs));
        QVERIFY(failed.first().at(0).value<JobOutcome>().isCancelled());

        ComparisonRun fresh(comparison, nullptr, 256);
        bool finished = false;
        connect(&fresh, &ComparisonRun::finished, this, [&finished] { finished = true; });
        fresh.start();
        QTRY_VERIFY_WITH_TIMEOUT(finished, kJobTimeoutMs);
    }
};

QTEST_MAIN(TestGuiCompare)
#include "tst_gui_compare.moc"
