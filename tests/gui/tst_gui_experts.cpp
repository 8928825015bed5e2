// The Experts page driven offscreen on the tiny-moe fixtures: every item model under
// QAbstractItemModelTester, tiles equal to the core's heatmap reduction, statistics equal to the
// manifest, the similarity matrix equal to a computation written out here, cancellation, export
// read back and hashed, and the "no experts" page of a dense model.

#include "core/compare/ErrorMetrics.h"
#include "core/gguf/Dequantize.h"
#include "ui/common/DivergingGradient.h"
#include "ui/experts/ExpertGridView.h"
#include "ui/experts/ExpertLayerExtrasView.h"
#include "core/experts/ExpertIndex.h"
#include "ui/session/ExpertQuantErrorModel.h"
#include "ui/experts/ExpertQuantErrorView.h"
#include "ui/session/ExpertScan.h"
#include "ui/session/ExpertSelection.h"
#include "ui/experts/ExpertSimilarityView.h"
#include "ui/session/ExpertStatisticsModel.h"
#include "ui/experts/ExpertStatisticsView.h"
#include "ui/experts/ExpertTile.h"
#include "ui/experts/ExpertsPage.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "ui/session/JobPool.h"
#include "ui/common/JobProgressBar.h"
#include "ui/experts/LayerExpertHeatmap.h"
#include "Manifest.h"
#include "SliceDigest.h"
#include "SmallModels.h"
#include "BigLayouts.h"
#include "core/quantize/Quantize.h"
#include "Waits.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFontMetrics>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>
#include <memory>

using namespace testsupport;

namespace {

constexpr int kTimeoutMs = testsupport::kHangGuardMs;
const QString kMoe = QStringLiteral("tiny-moe-Q4_K.gguf");

// The resident size (KiB) of the mapping holding `address`, from /proc/self/smaps; -1 if none.
qint64 residentKiBOfMappingAt(const void* address)
{
    QFile smaps(QStringLiteral("/proc/self/smaps"));
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text))
        return -1;
    const auto target = reinterpret_cast<quintptr>(address);
    bool inside = false;
    for (QByteArray line = smaps.readLine(); !line.isEmpty(); line = smaps.readLine()) {
        const qsizetype dash = line.indexOf('-');
        const qsizetype space = line.indexOf(' ');
        if (dash > 0 && space > dash && !line.contains(QByteArrayLiteral(": "))) {
            bool okBegin = false, okEnd = false;
            const quintptr begin = line.left(dash).toULongLong(&okBegin, 16);
            const quintptr end = line.mid(dash + 1, space - dash - 1).toULongLong(&okEnd, 16);
            inside = okBegin && okEnd && begin <= target && target < end;
            continue;
        }
        if (inside && line.startsWith("Rss:"))
            return line.mid(4).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

QString nameOf(const gguf::TensorInfo& tensor)
{
    return QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
}

std::vector<float> dequantizeExpert(const gguf::TensorInfo& tensor, std::uint64_t expert)
{
    auto slice = gguf::expertSlice(tensor, expert);
    if (!slice)
        qFatal("%s", slice.error().toString().c_str());
    std::vector<float> values(static_cast<std::size_t>(slice->elementCount()));
    if (gguf::Status s = gguf::dequantizeRows(tensor, slice->firstRow, slice->firstRow + slice->rowCount, values); !s)
        qFatal("%s", s.error().toString().c_str());
    return values;
}

QByteArrayView bytesOf(const std::vector<float>& values)
{
    return QByteArrayView(reinterpret_cast<const char*>(values.data()), static_cast<qsizetype>(values.size() * sizeof(float)));
}

// Holds every thread of the job pool until released, so jobs started meanwhile are still queued
// when the test cancels them: cancellation is then certain, not a race against a fast machine.
// The semaphores live as long as the last blocker task, which may still be leaving acquire()
// after the PoolBlocker is gone.
class PoolBlocker {
public:
    PoolBlocker() : m_threads(jobPool()->maxThreadCount()), m_gates(std::make_shared<Gates>())
    {
        for (int i = 0; i < m_threads; ++i)
            jobPool()->start([gates = m_gates]() {
                gates->started.release();
                gates->open.acquire();
            });
        m_gates->started.acquire(m_threads);
    }
    ~PoolBlocker() { m_gates->open.release(m_threads); }
    PoolBlocker(const PoolBlocker&) = delete;
    PoolBlocker& operator=(const PoolBlocker&) = delete;

private:
    struct Gates {
        QSemaphore started;
        QSemaphore open;
    };
    int m_threads;
    std::shared_ptr<Gates> m_gates;
};

bool tilesComplete(const ExpertsPage& page)
{
    const auto tiles = page.grid()->tiles();
    return !tiles.empty() && std::all_of(tiles.begin(), tiles.end(), [](const ExpertTile* tile) { return tile->hasHeatmap(); })
        && page.statisticsModel()->readyCount() == page.statisticsModel()->expertCount() && !page.scan()->isRunning();
}

}  // namespace

class TestGuiExperts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(QFileInfo::exists(fixturePath(kMoe)));
    }

    void everyModelPassesTheTester()
    {
        const auto opened = openModelAt(fixturePath(kMoe));
        QVERIFY(opened);
        ExpertsPage page(opened);
        page.resize(1200, 900);
        page.show();
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        const auto models = page.findChildren<QAbstractItemModel*>();
        for (QAbstractItemModel* model : models)
            testers.push_back(std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest));
        QVERIFY(std::any_of(models.begin(), models.end(), [&](QAbstractItemModel* m) { return m == page.statisticsModel(); }));
        QVERIFY(std::any_of(models.begin(), models.end(), [&](QAbstractItemModel* m) { return m == page.statisticsView()->proxy(); }));
        QVERIFY(std::any_of(models.begin(), models.end(), [&](QAbstractItemModel* m) { return m == page.quantError()->model(); }));
        // Results arriving, resets on every layer/projection change, sorting, metric changes.
        page.tabs()->setCurrentWidget(page.quantError());
        page.statisticsView()->table()->sortByColumn(ExpertStatisticsModel::RmsColumn, Qt::DescendingOrder);
        for (std::uint32_t layer : {0u, 1u}) {
            QVERIFY(page.selectLayer(layer));
            for (auto projection : {gguf::ExpertProjection::Down, gguf::ExpertProjection::Up})
                QVERIFY(page.selectProjection(projection));
        }
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!page.quantError()->isComputing(), kTimeoutMs);
        page.findChild<QComboBox*>(QStringLiteral("quantMetricCombo"))->setCurrentIndex(2);
        QVERIFY(page.setExpertSelection(QStringLiteral("1,3")).isEmpty());
    }

    void tilesOfLayer0Up()
    {
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QSignalSpy heatmaps(page.scan(), &ExpertScan::heatmapReady);
        QVERIFY(page.selectLayer(0));
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        const gguf::TensorInfo* tensor = model->findTensor("blk.0.ffn_up_exps.weight");
        QCOMPARE(page.currentTensor(), tensor);
        QCOMPARE(page.findChild<QLineEdit*>(QStringLiteral("expertSelectionEdit"))->text(), QStringLiteral("0-7"));
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
        QCOMPARE(heatmaps.count(), 8);  // one result per expert, as each finished

        const auto tiles = page.grid()->tiles();
        QCOMPARE(tiles.size(), 8u);
        double largest = 0.0;
        for (std::uint64_t e = 0; e < 8; ++e) {
            const ExpertTile* tile = tiles[e];
            QCOMPARE(tile->expert(), e);
            QVERIFY(tile->isVisible());
            const auto& statistics = page.statisticsModel()->statistics(e);
            QVERIFY(statistics);
            QVERIFY(tile->title().startsWith(QStringLiteral("Expert %1\n").arg(e)));
            QVERIFY(tile->title().contains(QString::number(statistics->statistics.rms, 'g', 3)));
            QVERIFY(tile->title().contains(QString::number(statistics->maxAbs, 'g', 3)));

            // The tile shows exactly what the core reduces the whole expert to: 128 × 128 cells,
            // each the mean of its 4 × 2 weights (the grid is built here, not taken from the tile).
            const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid({0, 512, 0, 256}, 128, 128, gguf::CellAggregate::Mean);
            QCOMPARE(tile->grid().region.rowBegin, grid.region.rowBegin);
            QCOMPARE(tile->grid().region.rowEnd, grid.region.rowEnd);
            QCOMPARE(tile->grid().region.columnBegin, grid.region.columnBegin);
            QCOMPARE(tile->grid().region.columnEnd, grid.region.columnEnd);
            QCOMPARE(tile->grid().rows, grid.rows);
            QCOMPARE(tile->grid().columns, grid.columns);
            QCOMPARE(tile->grid().aggregate, grid.aggregate);
            auto slice = gguf::expertSlice(*tensor, e);
            QVERIFY(slice);
            std::vector<float> expected(static_cast<std::size_t>(grid.rows) * grid.columns);
            QVERIFY(gguf::reduceHeatmapRows(*slice, grid, 0, grid.rows, expected));
            QCOMPARE(tile->cells().size(), expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i)
                QVERIFY2(sameBits(tile->cells()[i], expected[i]), qPrintable(QStringLiteral("expert %1 cell %2").arg(e).arg(i)));
            for (const float v : expected)
                largest = std::max(largest, static_cast<double>(std::fabs(v)));
        }
        // One symmetric scale for all tiles: the largest magnitude of any tile.
        QCOMPARE(page.grid()->colorLimit(), largest);
        for (const ExpertTile* tile : tiles)
            QCOMPARE(tile->findChild<QCPColorMap*>() ? tile->findChild<QCPColorMap*>()->dataRange().upper : 0.0, largest);
        QCOMPARE(page.grid()->findChild<QCPColorScale*>()->dataRange(), QCPRange(-largest, largest));
    }

    void clickingATileOpensThatExpert()
    {
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        QSignalSpy opened(&page, &ExpertsPage::openExpert);
        ExpertTile* tile = page.grid()->tile(3);
        QVERIFY(tile);
        QTest::mouseClick(tile->plot(), Qt::LeftButton, {}, tile->plot()->rect().center());
        QCOMPARE(opened.count(), 1);
        const int index = opened.at(0).at(0).toInt();
        QCOMPARE(nameOf(model->tensors()[static_cast<std::size_t>(index)]), QStringLiteral("blk.0.ffn_up_exps.weight"));
        QCOMPARE(opened.at(0).at(1).toInt(), 3);
        page.grid()->tile(5)->setFocus();
        QTest::keyClick(page.grid()->tile(5), Qt::Key_Return);
        QCOMPARE(opened.count(), 2);
        QCOMPARE(opened.at(1).at(1).toInt(), 5);
    }

    void chosenSubsetOfExperts()
    {
        const auto opened = openModelAt(fixturePath(kMoe));
        QVERIFY(opened);
        ExpertsPage page(opened);
        page.show();
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
        // Experts already drawn come back at once; the tiles are new widgets all the same.
        QSignalSpy heatmaps(page.scan(), &ExpertScan::heatmapReady);
        QVERIFY(page.setExpertSelection(QStringLiteral("5, 0-2,2")).isEmpty());
        QCOMPARE(page.shownExperts(), (std::vector<std::uint64_t>{0, 1, 2, 5}));
        QCOMPARE(page.grid()->tiles().size(), 4u);
        QCOMPARE(page.findChild<QLineEdit*>(QStringLiteral("expertSelectionEdit"))->text(), QStringLiteral("0-2,5"));
        QCOMPARE(heatmaps.count(), 4);
        QVERIFY(tilesComplete(page));
        for (const ExpertTile* tile : page.grid()->tiles())
            QVERIFY(tile->title().contains(QStringLiteral("rms")));  // figures filled from the table
        QVERIFY(!page.setExpertSelection(QStringLiteral("8")).isEmpty());    // no expert 8
        QVERIFY(!page.setExpertSelection(QStringLiteral("3-1")).isEmpty());  // backwards range
        QVERIFY(!page.setExpertSelection(QStringLiteral("x")).isEmpty());
        QCOMPARE(page.grid()->tiles().size(), 4u);  // a refused choice changes nothing
        // The choice carries over to another layer with as many experts.
        QVERIFY(page.selectLayer(1));
        QCOMPARE(page.grid()->tiles().size(), 4u);
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
        QCOMPARE(page.grid()->tile(5)->grid().region.rowEnd, 512u);

        QString error;
        QCOMPARE(parseExpertSelection(QStringLiteral("0-3,7"), 8, &error), std::optional(std::vector<std::uint64_t>{0, 1, 2, 3, 7}));
        QVERIFY(!parseExpertSelection(QStringLiteral(""), 8, &error));
        QVERIFY(!parseExpertSelection(QStringLiteral("-1"), 8, &error));
        QCOMPARE(formatExpertSelection({0, 1, 2, 3, 7, 9, 10}), QStringLiteral("0-3,7,9-10"));
        QCOMPARE(defaultExpertSelection(40).size(), 16u);
        QCOMPARE(defaultExpertSelection(8).size(), 8u);
    }

    // Per-expert statistics of all six expert tensors against the manifest, and the sorted proxy.
    void statisticsMatchManifest()
    {
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        const std::optional<Manifest> loaded = loadFixtureManifest(kMoe);
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ExpertsPage page(model);
        page.show();
        for (std::uint32_t layer : {0u, 1u}) {
            for (auto projection : {gguf::ExpertProjection::Gate, gguf::ExpertProjection::Up, gguf::ExpertProjection::Down}) {
                QVERIFY(page.selectLayer(layer));
                QVERIFY(page.selectProjection(projection));
                const QString name = nameOf(*page.currentTensor());
                QCOMPARE(name, QStringLiteral("blk.%1.ffn_%2_exps.weight").arg(layer).arg(QString::fromLatin1(gguf::projectionName(projection))));
                QTRY_VERIFY_WITH_TIMEOUT(page.statisticsModel()->readyCount() == 8, kTimeoutMs);
                const ManifestTensor* expected = manifest.findTensor(name);
                QVERIFY(expected);
                for (const ManifestExpert& entry : expected->experts) {
                    const auto& result = page.statisticsModel()->statistics(entry.index);
                    QVERIFY(result);
                    QVERIFY2(std::abs(result->statistics.mean - entry.mean) <= 1e-12 * std::max(1.0, std::abs(entry.mean)), qPrintable(name));
                    QVERIFY2(std::abs(result->statistics.rms - entry.rms) <= 1e-12 * std::max(1.0, entry.rms), qPrintable(name));
                    QCOMPARE(result->statistics.nanCount, 0u);
                    QCOMPARE(result->statistics.infCount, 0u);
                    const QModelIndex rms = page.statisticsModel()->index(static_cast<int>(entry.index), ExpertStatisticsModel::RmsColumn);
                    QCOMPARE(rms.data(ExpertStatisticsModel::SortRole).toDouble(), result->statistics.rms);
                }
            }
        }
        // rms grows with the expert index in these fixtures: sorted by rms descending, expert 7 leads.
        page.statisticsView()->table()->sortByColumn(ExpertStatisticsModel::RmsColumn, Qt::DescendingOrder);
        QSortFilterProxyModel* proxy = page.statisticsView()->proxy();
        QCOMPARE(proxy->index(0, ExpertStatisticsModel::ExpertColumn).data().toULongLong(), 7u);
        QCOMPARE(proxy->index(7, ExpertStatisticsModel::ExpertColumn).data().toULongLong(), 0u);
        // The bar chart holds the rms of every expert.
        const auto bars = page.statisticsView()->rmsBars()->data();
        QCOMPARE(bars->size(), 8);
        for (int e = 0; e < 8; ++e)
            QCOMPARE(bars->at(e)->value, page.statisticsModel()->statistics(static_cast<std::uint64_t>(e))->statistics.rms);
    }

    // Across layers reads every expert of every layer once: each expert's mapped pages are
    // released when it is done, so the resident memory does not grow with the model (it grew
    // 1.7 -> 15.1 GB on a 94-layer model and stayed after Cancel).
    void acrossLayersReleasesWhatItRead()
    {
        auto model = openModelAt(fixturePath(QStringLiteral("tiny-moe-F16.gguf")));
        QVERIFY(model);
        std::vector<LayerExpertHeatmap::LayerTensor> layers;
        std::uint64_t bytes = 0;
        for (std::uint32_t layer = 0; layer < 2; ++layer) {
            const gguf::TensorInfo* tensor = model->findTensor("blk." + std::to_string(layer) + ".ffn_up_exps.weight");
            QVERIFY(tensor);
            layers.push_back({layer, tensor});
            bytes += tensor->nbytes;
        }
        const void* where = layers.front().tensor->data;
        const qint64 before = residentKiBOfMappingAt(where);
        QVERIFY(before >= 0);
        JobProgressBar progress;
        LayerExpertHeatmap view(&progress);
        view.resize(800, 600);
        view.setTensors(model, layers);
        QSignalSpy ready(&view, &LayerExpertHeatmap::statisticsReady);
        view.show();
        QVERIFY(ready.wait(kTimeoutMs));
        QVERIFY(view.result(1, 7).has_value());
        const qint64 grown = residentKiBOfMappingAt(where) - before;
        QVERIFY2(grown * 1024 < static_cast<qint64>(bytes / 4),
                 qPrintable(QStringLiteral("%1 KiB resident after reading %2 KiB").arg(grown).arg(bytes / 1024)));
    }

    // 94 layers on a short axis: every layer's number would run into the next; the labels are
    // thinned (every 2nd, 5th, 10th…) to fit, and stay on layer rows.
    void acrossLayersLabelsDoNotOverlap()
    {
        testsupport::ModelLayout layout;
        layout.name = "94 layers";
        for (int layer = 0; layer < 94; ++layer)
            layout.tensors.push_back({"blk." + std::to_string(layer) + ".ffn_up_exps.weight", 0, {32, 2, 4}});
        auto model = testsupport::openLayout(layout);
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        std::vector<LayerExpertHeatmap::LayerTensor> layers;
        for (std::uint32_t layer = 0; layer < 94; ++layer)
            layers.push_back({layer, model.value()->findTensor("blk." + std::to_string(layer) + ".ffn_up_exps.weight")});
        JobProgressBar progress;
        LayerExpertHeatmap view(&progress);
        view.resize(700, 420);
        view.setTensors(model.value(), layers);
        QSignalSpy ready(&view, &LayerExpertHeatmap::statisticsReady);
        view.show();
        QVERIFY(ready.wait(kTimeoutMs));
        view.plot()->replot();
        const QVector<double> ticks = view.plot()->yAxis->tickVector();
        const QVector<QString> labels = view.plot()->yAxis->tickVectorLabels();
        QVERIFY(ticks.size() > 1);
        QCOMPARE(labels.size(), ticks.size());
        const double line = QFontMetrics(view.plot()->yAxis->tickLabelFont()).height();
        for (qsizetype i = 1; i < ticks.size(); ++i) {
            const double apart = std::abs(view.plot()->yAxis->coordToPixel(ticks[i]) - view.plot()->yAxis->coordToPixel(ticks[i - 1]));
            QVERIFY2(apart >= line, qPrintable(QStringLiteral("%1 and %2: %3 px apart, a line is %4").arg(labels[i - 1], labels[i]).arg(apart).arg(line)));
            QCOMPARE(labels[i], QString::number(ticks[i]));
        }
    }

    void layersByExpertsHeatmap()
    {
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        const std::optional<Manifest> loaded = loadFixtureManifest(kMoe);
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Down));
        QSignalSpy ready(page.layerHeatmap(), &LayerExpertHeatmap::statisticsReady);
        QVERIFY(!page.layerHeatmap()->isComputing());  // nothing read until the view is shown
        page.tabs()->setCurrentWidget(page.layerHeatmap());
        QVERIFY(ready.wait(kTimeoutMs));
        QCOMPARE(page.layerHeatmap()->layerCount(), 2u);
        QCOMPARE(page.layerHeatmap()->expertCount(), 8u);
        for (std::size_t layer = 0; layer < 2; ++layer) {
            const ManifestTensor* expected = manifest.findTensor(QStringLiteral("blk.%1.ffn_down_exps.weight").arg(layer));
            for (const ManifestExpert& entry : expected->experts) {
                const auto& result = page.layerHeatmap()->result(layer, entry.index);
                QVERIFY(result);
                QVERIFY(std::abs(result->statistics.rms - entry.rms) <= 1e-12);
                QVERIFY(std::abs(result->statistics.mean - entry.mean) <= 1e-12);
            }
        }
        // The map shows the chosen statistic: cell (expert 5, layer 1) is that expert's mean.
        page.layerHeatmap()->setStatistic(ExpertStatisticKind::Mean);
        QCPColorMap* map = page.layerHeatmap()->findChild<QCPColorMap*>();
        QVERIFY(map);
        QCOMPARE(map->data()->cell(5, 1), page.layerHeatmap()->result(1, 5)->statistics.mean);
        page.layerHeatmap()->setStatistic(ExpertStatisticKind::Sparsity);
        QCOMPARE(map->data()->cell(5, 1), page.layerHeatmap()->result(1, 5)->sparsity);
    }

    void similarityMatchesIndependentComputation_data()
    {
        QTest::addColumn<int>("layer");
        QTest::addColumn<int>("projection");
        QTest::newRow("layer 0 up") << 0 << static_cast<int>(gguf::ExpertProjection::Up);
        QTest::newRow("layer 1 down") << 1 << static_cast<int>(gguf::ExpertProjection::Down);
    }

    void similarityMatchesIndependentComputation()
    {
        QFETCH(int, layer);
        QFETCH(int, projection);
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QVERIFY(page.selectLayer(static_cast<std::uint32_t>(layer)));
        QVERIFY(page.selectProjection(static_cast<gguf::ExpertProjection>(projection)));
        QSignalSpy similarityReady(page.similarity(), &ExpertSimilarityView::similarityReady);
        QSignalSpy routerReady(page.similarity(), &ExpertSimilarityView::routerNormsReady);
        page.tabs()->setCurrentWidget(page.similarity());
        QVERIFY(similarityReady.wait(kTimeoutMs));
        QTRY_COMPARE_WITH_TIMEOUT(routerReady.count(), 1, kTimeoutMs);

        const gguf::TensorInfo& tensor = *page.currentTensor();
        const std::uint64_t n = 8;
        QCOMPARE(page.similarity()->expertCount(), n);
        auto* map = page.similarity()->similarityPlot()->findChild<QCPColorMap*>();
        QVERIFY(map->gradient() == divergingGradient());  // not the colour scale's default
        QCOMPARE(map->dataRange(), QCPRange(-1.0, 1.0));
        std::vector<std::vector<float>> experts;
        for (std::uint64_t e = 0; e < n; ++e)
            experts.push_back(dequantizeExpert(tensor, e));
        const std::vector<double>& cosine = page.similarity()->cosine();
        QCOMPARE(cosine.size(), n * n);
        for (std::uint64_t i = 0; i < n; ++i) {
            for (std::uint64_t j = 0; j < n; ++j) {
                double ab = 0, aa = 0, bb = 0;
                for (std::size_t k = 0; k < experts[i].size(); ++k) {
                    ab += double(experts[i][k]) * double(experts[j][k]);
                    aa += double(experts[i][k]) * double(experts[i][k]);
                    bb += double(experts[j][k]) * double(experts[j][k]);
                }
                QVERIFY2(std::abs(cosine[i * n + j] - ab / std::sqrt(aa * bb)) <= 1e-9, qPrintable(QStringLiteral("(%1, %2)").arg(i).arg(j)));
                QCOMPARE(cosine[i * n + j], cosine[j * n + i]);
            }
            QVERIFY(std::abs(cosine[i * n + i] - 1.0) <= 1e-12);
        }
        // Router row norms from the raw F32 router.
        const gguf::TensorInfo& router = *page.expertIndex().findLayer(static_cast<std::uint32_t>(layer))->router;
        const std::vector<double>& norms = page.similarity()->routerNorms();
        QCOMPARE(norms.size(), n);
        for (std::uint64_t e = 0; e < n; ++e) {
            double sum = 0;
            for (std::int64_t k = 0; k < router.ne[0]; ++k) {
                float value;
                std::memcpy(&value, router.data + (static_cast<std::int64_t>(e) * router.ne[0] + k) * sizeof(float), sizeof value);
                sum += double(value) * double(value);
            }
            QVERIFY(std::abs(norms[e] - std::sqrt(sum)) <= 1e-12 * std::sqrt(sum));
        }
    }

    // Experts that are all zeros are summarized as ranges ("1-3,5"), not listed one number each
    // (a 128-expert layer gave 128 numbers); all of them say "all N experts".
    void zeroExpertsAreSummarized()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("zeroed.gguf"));
        QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-moe-F16.gguf")), path));
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
        std::uint64_t start = 0;
        std::uint64_t expertBytes = 0;
        {
            auto original = openModelAt(path);
            QVERIFY(original);
            const gguf::TensorInfo* tensor = original->findTensor("blk.0.ffn_up_exps.weight");
            QVERIFY(tensor && tensor->ne[2] == 8);
            start = original->primary().dataOffset() + tensor->offset;
            expertBytes = tensor->nbytes / 8;
        }
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadWrite));
            for (const int expert : {1, 2, 3, 5}) {
                QVERIFY(file.seek(static_cast<qint64>(start + expertBytes * static_cast<std::uint64_t>(expert))));
                QCOMPARE(file.write(QByteArray(static_cast<qsizetype>(expertBytes), '\0')), static_cast<qint64>(expertBytes));
            }
        }
        auto model = openModelAt(path);
        QVERIFY(model);
        JobProgressBar progress;
        ExpertSimilarityView view(&progress);
        view.resize(800, 600);
        view.show();
        QSignalSpy ready(&view, &ExpertSimilarityView::similarityReady);
        view.setTensors(model, model->findTensor("blk.0.ffn_up_exps.weight"), nullptr);
        QVERIFY(ready.count() > 0 || ready.wait(kTimeoutMs));
        auto* message = view.findChild<QLabel*>(QStringLiteral("similarityMessage"));
        QVERIFY(message);
        QVERIFY2(message->text().contains(QStringLiteral("4 experts (1-3,5) are all zeros")), qPrintable(message->text()));
    }

    // Each expert quantized to q8_0 in memory and compared: the view's RMSE equals one computed
    // here with the quantizer and kernel directly, and q2_K loses more than q8_0 for every expert.
    void quantizationErrorPerExpert()
    {
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        QSignalSpy ready(page.quantError(), &ExpertQuantErrorView::errorsReady);
        page.tabs()->setCurrentWidget(page.quantError());
        QVERIFY(ready.wait(kTimeoutMs));
        const ExpertQuantErrorModel* errors = page.quantError()->model();
        QCOMPARE(errors->columnLabels(), (QStringList{QStringLiteral("q2_K"), QStringLiteral("q8_0")}));
        const gguf::TypeTraits* q8 = &gguf::traitsOf(gguf::GgmlTypeId::Q8_0);
        for (std::uint64_t e = 0; e < 8; ++e) {
            const auto& q2Error = errors->metrics(e, 0);
            const auto& q8Error = errors->metrics(e, 1);
            QVERIFY(q2Error && q8Error);
            QVERIFY(q8Error->relativeRmse < q2Error->relativeRmse);
            const std::vector<float> values = dequantizeExpert(*page.currentTensor(), e);
            std::vector<std::uint8_t> packed(static_cast<std::size_t>(gguf::quantizedSize(*q8, values.size())));
            QVERIFY(gguf::quantizeValues(q8->id, values, packed));
            std::vector<float> back(values.size());
            q8->dequantize(packed.data(), back.data(), packed.size() / q8->blockBytes);
            double squares = 0;
            for (std::size_t k = 0; k < values.size(); ++k)
                squares += (double(back[k]) - double(values[k])) * (double(back[k]) - double(values[k]));
            const double rmse = std::sqrt(squares / static_cast<double>(values.size()));
            QVERIFY2(std::abs(q8Error->rmse - rmse) <= 1e-12 * rmse, qPrintable(QStringLiteral("expert %1").arg(e)));
            QCOMPARE(q8Error->count, values.size());
        }
    }

    // Another file of the model compared with the open one, expert by expert (the tab only
    // re-quantized the open file): the Q2_K file's stored experts against the F16 ones, as a
    // column before the types, with the RMSE of the two files' values.
    void quantizationErrorAgainstAnotherFile()
    {
        auto f16 = openModelAt(fixturePath(QStringLiteral("tiny-moe-F16.gguf")));
        QVERIFY(f16);
        ExpertsPage page(f16);
        page.resize(1200, 900);
        page.show();
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        ExpertQuantErrorView* view = page.quantError();
        QSignalSpy opened(view, &ExpertQuantErrorView::otherFileOpened);
        view->addOtherFile(fixturePath(QStringLiteral("tiny-moe-Q2_K.gguf")));
        QVERIFY(opened.count() > 0 || opened.wait(kTimeoutMs));
        QVERIFY2(opened.first().at(0).toBool(), qPrintable(opened.first().at(1).toString()));
        view->setTypes({gguf::typeIdValue(gguf::GgmlTypeId::Q8_0)});
        QSignalSpy ready(view, &ExpertQuantErrorView::errorsReady);
        page.tabs()->setCurrentWidget(view);
        QVERIFY(ready.wait(kTimeoutMs));
        const ExpertQuantErrorModel* errors = view->model();
        QCOMPARE(errors->columnLabels(), (QStringList{QStringLiteral("tiny-moe-Q2_K.gguf"), QStringLiteral("q8_0")}));
        const gguf::TensorInfo& reference = *page.currentTensor();
        const gguf::TensorInfo* stored = view->otherFiles().front()->findTensor(reference.name);
        QVERIFY(stored);
        for (std::uint64_t e = 0; e < 8; ++e) {
            const std::vector<float> a = dequantizeExpert(reference, e);
            const std::vector<float> b = dequantizeExpert(*stored, e);
            gguf::ErrorAccumulator alone;
            alone.add(a, b);
            const auto& shown = errors->metrics(e, 0);
            QVERIFY(shown);
            QVERIFY2(shown->rmse == alone.result().rmse, qPrintable(QStringLiteral("expert %1").arg(e)));
            QVERIFY(errors->metrics(e, 1));
        }
    }

    void denseModelSaysItHasNoExperts()
    {
        const auto opened = openModelAt(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        QVERIFY(opened);
        ExpertsPage page(opened);
        page.show();
        QVERIFY(!page.hasExperts());
        QVERIFY(!page.tabs());
        QVERIFY(!page.currentTensor());
        auto* label = page.findChild<QLabel*>(QStringLiteral("noExpertsMessage"));
        QVERIFY(label && label->isVisible());
        QVERIFY(label->text().contains(QStringLiteral("no experts")));
        QVERIFY(label->text().contains(QStringLiteral("dense")));
        QCOMPARE(page.message(), label->text());
        QVERIFY(!page.findChild<QLabel*>(QStringLiteral("expertWarnings"))->isVisible());
        QVERIFY(!page.setExpertSelection(QStringLiteral("0")).isEmpty());
        QVERIFY(!page.exportExperts({0}, QDir::temp().filePath(QStringLiteral("never.npy"))).isEmpty());
    }

    void exportOfExperts3And5()
    {
        auto model = openModelAt(fixturePath(kMoe));
        QVERIFY(model);
        const std::optional<Manifest> loaded = loadFixtureManifest(kMoe);
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ExpertsPage page(model);
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        const gguf::TensorInfo& tensor = *page.currentTensor();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QSignalSpy finished(&page, &ExpertsPage::exportFinished);

        const QString npy = dir.filePath(QStringLiteral("experts.npy"));
        QCOMPARE(page.exportExperts({3, 5}, npy), QString());
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        const QByteArray file = readWholeFile(npy);
        QVERIFY(file.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        const int headerLength = static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
        const QByteArray header = file.mid(10, headerLength);
        QVERIFY2(header.contains("'shape': (2, 512, 256)"), header.constData());
        QVERIFY(header.contains("'descr': '<f4'"));
        QVERIFY(header.contains("'fortran_order': False"));
        const QByteArray data = file.mid(10 + headerLength);
        QCOMPARE(data.size(), 2 * 512 * 256 * 4);
        // The data is expert 3 then expert 5, each as the manifest hashes it.
        const std::vector<float> three = dequantizeExpert(tensor, 3);
        const std::vector<float> five = dequantizeExpert(tensor, 5);
        QCryptographicHash both(QCryptographicHash::Sha256);
        both.addData(bytesOf(three));
        both.addData(bytesOf(five));
        QCOMPARE(sha256Hex(data), both.result().toHex());
        const ManifestTensor* expected = manifest.findTensor(QStringLiteral("blk.0.ffn_up_exps.weight"));
        QCOMPARE(sha256Hex(QByteArrayView(data).first(data.size() / 2)), expected->experts[3].sha256);
        QCOMPARE(sha256Hex(QByteArrayView(data).sliced(data.size() / 2)), expected->experts[5].sha256);

        // One expert as raw f32.
        const QString raw = dir.filePath(QStringLiteral("expert3.f32"));
        QCOMPARE(page.exportExperts({3}, raw), QString());
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY(finished.at(1).at(0).toBool());
        QCOMPARE(sha256Hex(readWholeFile(raw)), expected->experts[3].sha256);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);  // no temp files left
        QVERIFY(!page.exportExperts({8}, raw).isEmpty());
    }

    // Never over an input: the model is a copy in a temp dir, so a broken check cannot hurt the fixtures.
    void exportRefusesToOverwriteTheInput()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(kMoe);
        QVERIFY(QFile::copy(fixturePath(kMoe), copy));
        const QByteArray before = sha256Hex(readWholeFile(copy));
        const auto opened = openModelAt(copy);
        QVERIFY(opened);
        ExpertsPage page(opened);
        QSignalSpy finished(&page, &ExpertsPage::exportFinished);
        QCOMPARE(page.exportExperts({0}, copy), QString());
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY(finished.at(0).at(1).toString().contains(QStringLiteral("refusing to overwrite")));
        QCOMPARE(sha256Hex(readWholeFile(copy)), before);
    }

    void exportCancelledLeavesNothing()
    {
        const auto opened = openModelAt(fixturePath(kMoe));
        QVERIFY(opened);
        ExpertsPage page(opened);
        page.show();
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
        QTemporaryDir dir;
        QSignalSpy finished(&page, &ExpertsPage::exportFinished);
        {
            PoolBlocker blocker;
            QCOMPARE(page.exportExperts({0, 1, 2}, dir.filePath(QStringLiteral("cancelled.npy"))), QString());
            auto* cancel = page.progress()->findChild<QPushButton*>(QStringLiteral("cancelJobButton"));
            QVERIFY(cancel && cancel->isVisible());
            cancel->click();
        }
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(finished.at(0).at(1).toString().contains(QStringLiteral("cancelled")), qPrintable(finished.at(0).at(1).toString()));
        const QStringList left = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char(' '))));
    }

    // A newer layer/projection choice cancels the jobs of the older one, whose results never land.
    void newerChoiceCancelsOlderJobs()
    {
        auto model = openModelAt(fixturePath(QStringLiteral("tiny-moe-Q2_K.gguf")));
        QVERIFY(model);
        const std::optional<Manifest> loaded = loadFixtureManifest(QStringLiteral("tiny-moe-Q2_K.gguf"));
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ExpertsPage page(model);
        page.show();
        QSignalSpy statistics(page.scan(), &ExpertScan::statisticsReady);
        {
            PoolBlocker blocker;
            QVERIFY(page.selectLayer(1));
            QVERIFY(page.selectProjection(gguf::ExpertProjection::Down));
        }
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
        QCOMPARE(statistics.count(), 8);  // only the newest tensor's experts reported
        const ManifestTensor* expected = manifest.findTensor(QStringLiteral("blk.1.ffn_down_exps.weight"));
        for (const ManifestExpert& entry : expected->experts)
            QVERIFY(std::abs(page.statisticsModel()->statistics(entry.index)->statistics.rms - entry.rms) <= 1e-12);
    }

    // A DeepSeek-V3 / Qwen3.5-397B sized layout (94 layers of 512 experts, 8 used, a shared
    // expert, a selection bias and per-expert down biases; each expert tiny so the file stays
    // small): the page lists every layer, shows the shared expert and the biases of the chosen
    // layer with one value row per expert, and builds without reading expert weights on the UI
    // thread: with every pool thread held, construction and a layer change still return, and no
    // expert statistic exists until the pool runs.
    void bigLayoutShowsSharedExpertsAndBiases()
    {
        using gguf::EncodedValue;
        constexpr std::int64_t kLayers = 94, kExperts = 512, kEmbd = 32, kExpertFf = 2, kSharedFf = 4;
        std::vector<std::pair<std::string, EncodedValue>> keys{
            {"general.architecture", EncodedValue::string("deepseek2")},
            {"deepseek2.block_count", EncodedValue::u32(kLayers)},
            {"deepseek2.expert_count", EncodedValue::u32(kExperts)},
            {"deepseek2.expert_used_count", EncodedValue::u32(8)},
        };
        std::vector<SmallTensor> tensors{{"token_embd.weight", {kEmbd, 16}}};
        for (std::int64_t il = 0; il < kLayers; ++il) {
            const std::string blk = "blk." + std::to_string(il) + ".";
            tensors.push_back({blk + "ffn_gate_inp.weight", {kEmbd, kExperts}});
            tensors.push_back({blk + "exp_probs_b.bias", {kExperts}});
            tensors.push_back({blk + "ffn_gate_exps.weight", {kEmbd, kExpertFf, kExperts}});
            tensors.push_back({blk + "ffn_up_exps.weight", {kEmbd, kExpertFf, kExperts}});
            tensors.push_back({blk + "ffn_down_exps.weight", {kExpertFf, kEmbd, kExperts}});
            tensors.push_back({blk + "ffn_down_exps.bias", {kEmbd, kExperts}});
            tensors.push_back({blk + "ffn_gate_shexp.weight", {kEmbd, kSharedFf}});
            tensors.push_back({blk + "ffn_up_shexp.weight", {kEmbd, kSharedFf}});
            tensors.push_back({blk + "ffn_down_shexp.weight", {kSharedFf, kEmbd}});
        }
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big-moe.gguf"));
        QCOMPARE(QString::fromStdString(writeSmallModel(path.toStdString(), keys, tensors)), QString());
        const auto model = openModelAt(path);
        QVERIFY(model);

        std::unique_ptr<ExpertsPage> page;
        {
            PoolBlocker blocker;
            page = std::make_unique<ExpertsPage>(model);
            page->resize(1200, 900);
            page->show();
            QCOMPARE(page->findChild<QComboBox*>(QStringLiteral("layerCombo"))->count(), int(kLayers));
            QVERIFY(page->selectLayer(93));
            QCOMPARE(page->statisticsModel()->expertCount(), std::uint64_t(kExperts));
            QCOMPARE(page->statisticsModel()->readyCount(), 0u);
            QVERIFY(page->scan()->isRunning());

            // The shared expert and the biases of layer 93, by role.
            page->tabs()->setCurrentWidget(page->layerExtras());
            QTableWidget* table = page->layerExtras()->tensorTable();
            QCOMPARE(table->rowCount(), 5);
            QStringList names, roles;
            for (int row = 0; row < table->rowCount(); ++row) {
                names << table->item(row, ExpertLayerExtrasView::NameColumn)->text();
                roles << table->item(row, ExpertLayerExtrasView::RoleColumn)->text();
            }
            for (const char* name : {"blk.93.ffn_gate_shexp.weight", "blk.93.ffn_up_shexp.weight", "blk.93.ffn_down_shexp.weight",
                                     "blk.93.exp_probs_b.bias", "blk.93.ffn_down_exps.bias"})
                QVERIFY2(names.contains(QLatin1String(name)), name);
            QVERIFY(roles.contains(QStringLiteral("shared expert up projection")));
            QVERIFY(roles.contains(QStringLiteral("bias of each expert's down projection")));
            QVERIFY(roles.filter(QStringLiteral("selection bias")).size() == 1);
            QVERIFY(page->layerExtras()->summary()->text().contains(QStringLiteral("512 routed experts")));
            QVERIFY(page->findChild<QLabel*>(QStringLiteral("expertTensorLabel"))->text().contains(QStringLiteral("blk.93.exp_probs_b.bias")));

            // One row per expert; the values are read on the pool, which is held: nothing of
            // them may be in the table yet (a read on this thread would have filled it).
            QTableWidget* values = page->layerExtras()->valueTable();
            QCOMPARE(values->rowCount(), int(kExperts));
            QCOMPARE(values->columnCount(), 3);
            QVERIFY(page->layerExtras()->isReadingValues());
            for (const int expert : {0, 300, 511}) {
                QCOMPARE(values->item(expert, 0)->data(Qt::DisplayRole).toULongLong(), qulonglong(expert));
                QCOMPARE(values->item(expert, 1)->text(), QStringLiteral("…"));
                QCOMPARE(values->item(expert, 2)->text(), QStringLiteral("…"));
            }
            QCOMPARE(page->statisticsModel()->readyCount(), 0u);  // still nothing read on this thread
        }
        // Released, the pool reads the biases: the values the file holds (element i is (i % 251) / 8).
        QTRY_VERIFY_WITH_TIMEOUT(!page->layerExtras()->isReadingValues(), kTimeoutMs);
        QTableWidget* values = page->layerExtras()->valueTable();
        for (const int expert : {0, 300, 511}) {
            QCOMPARE(values->item(expert, 1)->data(Qt::DisplayRole).toDouble(), double(expert % 251) / 8.0);
            double mean = 0.0;
            for (int i = 0; i < kEmbd; ++i)
                mean += double((expert * kEmbd + i) % 251) / 8.0;
            QVERIFY(std::abs(values->item(expert, 2)->data(Qt::DisplayRole).toDouble() - mean / kEmbd) < 1e-12);
        }
        // And the experts' statistics arrive.
        QTRY_VERIFY_WITH_TIMEOUT(page->statisticsModel()->readyCount() == std::uint64_t(kExperts) && !page->scan()->isRunning(), kTimeoutMs);
    }

    void cancelButtonStopsTheExpertJobs()
    {
        const auto opened = openModelAt(fixturePath(QStringLiteral("tiny-moe-F16.gguf")));
        QVERIFY(opened);
        ExpertsPage page(opened);
        page.show();
        QSignalSpy finished(page.scan(), &ExpertScan::finished);
        {
            PoolBlocker blocker;
            QVERIFY(page.selectProjection(gguf::ExpertProjection::Down));
            auto* cancel = page.progress()->findChild<QPushButton*>(QStringLiteral("cancelJobButton"));
            QVERIFY(cancel && cancel->isVisible());
            cancel->click();
        }
        QVERIFY(finished.wait(kTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!page.progress()->isVisible(), kTimeoutMs);
        QCOMPARE(page.statisticsModel()->readyCount(), 0u);
        QCOMPARE(page.statisticsModel()->index(0, ExpertStatisticsModel::RmsColumn).data().toString(), QStringLiteral("…"));
        // Choosing again computes it.
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        QTRY_VERIFY_WITH_TIMEOUT(tilesComplete(page), kTimeoutMs);
    }
};

QTEST_MAIN(TestGuiExperts)
#include "tst_gui_experts.moc"
