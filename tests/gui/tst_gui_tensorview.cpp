// The desktop app driven offscreen: open fixtures, browse, wait for the background jobs and
// check what the views show against the core and the manifests; exports; responsiveness while
// a large dequantization runs; bad files; screenshots of every page.

#include "Screenshot.h"
#include "OneTensorHeader.h"
#include "ui/tensor/BlockInspector.h"
#include "ui/tensor/BlockScalesView.h"
#include "core/gguf/Dequantize.h"
#include "ui/tensor/DistributionView.h"
#include "Fixtures.h"
#include "GuiThreadCpu.h"
#include "OpenFixture.h"
#include "core/analysis/HeatmapReducer.h"
#include "ui/tensor/HeatmapView.h"
#include "ui/shell/MainWindow.h"
#include "Manifest.h"
#include "ui/shell/ModelPage.h"
#include "ui/common/PlotExport.h"
#include "ui/tensor/RowValuesView.h"
#include "core/blocks/ScaleOverview.h"
#include "SliceDigest.h"
#include "ui/tensor/TensorBrowser.h"
#include "ui/session/TensorTableModel.h"
#include "ui/session/TensorTreeModel.h"
#include "ui/tensor/TensorViewPage.h"
#include "Waits.h"
#include "core/base/HumanFormat.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QSignalSpy>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTextDocument>
#include <QTextTable>
#include <qcustomplot.h>

using namespace testsupport;

namespace {
constexpr int kJobTimeoutMs = testsupport::kHangGuardMs;

// A little-endian GGUF v3 file with one Q8_0 tensor of rows × columns, written byte by byte so
// the test needs no writer: big enough that dequantizing it takes a while.
QString writeLargeQ8File(const QString& dir, std::uint64_t columns, std::uint64_t rows)
{
    const QByteArray header = testsupport::oneTensorHeader("big.q8_0", 8, columns, rows);  // 8: Q8_0
    const QString path = dir + QStringLiteral("/large-q8_0.gguf");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(header);
    QByteArray block(34, '\0');
    block[0] = char(0x00);
    block[1] = char(0x20);  // d = 2^-15 as f16 0x2000... small and finite
    for (int i = 0; i < 32; ++i)
        block[2 + i] = char(i * 7 - 100);
    QByteArray chunk;
    for (int i = 0; i < 4096; ++i)
        chunk.append(block);
    const std::uint64_t blocks = columns / 32 * rows;
    for (std::uint64_t written = 0; written < blocks; written += 4096)
        file.write(chunk.constData(), static_cast<qint64>(std::min<std::uint64_t>(4096, blocks - written) * 34));
    return path;
}
}  // namespace

class TestGuiTensorView : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    ModelPage* openAndWait(const QString& path)
    {
        const int before = m_window->tabs()->count();
        m_window->openFile(path);
        if (!QTest::qWaitFor([&]() { return m_window->tabs()->count() > before; }, kJobTimeoutMs))
            return nullptr;
        return qobject_cast<ModelPage*>(m_window->tabs()->widget(m_window->tabs()->count() - 1));
    }

    void selectTensor(ModelPage* page, const QString& name)
    {
        page->showTensorsPage();
        page->tensorBrowser()->setFilterText(QRegularExpression::escape(name));
        QTRY_COMPARE_WITH_TIMEOUT(page->tensorBrowser()->tableProxy()->rowCount(), 1, kHangGuardMs);
        page->tensorBrowser()->tableView()->setCurrentIndex(page->tensorBrowser()->tableProxy()->index(0, 0));
        QCOMPARE(page->tensorPage()->slice().tensorName(), name);
    }

    void screenshot(const QString& name)
    {
        QVERIFY(testsupport::saveScreenshot(*m_window, name));
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_gui_tensorview"));
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void itemModelsPassModelTester()
    {
        auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")).toStdString());
        QVERIFY(model);
        TensorTableModel table;
        QAbstractItemModelTester tableTester(&table, QAbstractItemModelTester::FailureReportingMode::QtTest);
        table.setModel(*model);
        QCOMPARE(table.rowCount(), 23);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&table);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setFilterRegularExpression(QStringLiteral("exps"));
        QCOMPARE(proxy.rowCount(), 6);
        proxy.sort(TensorTableModel::Size);

        TensorTreeModel tree;
        QAbstractItemModelTester treeTester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tree.setModel(*model);
        QCOMPARE(tree.rowCount(), 3);  // blk.0, blk.1, other
        QCOMPARE(tree.rowCount(tree.index(0, 0)), 10);
        QVERIFY(tree.index(0, 0).data().toString().startsWith(QStringLiteral("blk.0")));
        int children = 0;
        for (int g = 0; g < tree.rowCount(); ++g)
            children += tree.rowCount(tree.index(g, 0));
        QCOMPARE(children, 23);

        tree.setModel(nullptr);
        table.setModel(nullptr);
    }

    void heatmapShowsTheDequantizedWeights()
    {
        const std::optional<Manifest> loaded = loadFixtureManifest(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ModelPage* page = openAndWait(manifest.filePath());
        QVERIFY(page);
        const QString name = QStringLiteral("blk.0.attn_q.weight");
        selectTensor(page, name);
        HeatmapView* heatmap = page->tensorPage()->heatmap();
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing() && !heatmap->cells().empty(), kJobTimeoutMs);
        const gguf::HeatmapGrid& grid = heatmap->grid();
        // The 256 × 256 matrix fits the plot one cell per weight: the cells are the weights.
        QCOMPARE(grid.rows, 256u);
        QCOMPARE(grid.columns, 256u);
        const QByteArray hash = sha256Hex(QByteArrayView(reinterpret_cast<const char*>(heatmap->cells().data()),
                                                         static_cast<qsizetype>(heatmap->cells().size() * sizeof(float))));
        QCOMPARE(hash, manifest.findTensor(name)->sha256);
        screenshot(QStringLiteral("tensor-heatmap"));
    }

    void expertHeatmapIsReducedLikeTheCore()
    {
        const std::optional<Manifest> loaded = loadFixtureManifest(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ModelPage* page = openAndWait(manifest.filePath());
        QVERIFY(page);
        const QString name = QStringLiteral("blk.1.ffn_down_exps.weight");
        selectTensor(page, name);
        auto* expert = page->tensorPage()->findChild<QSpinBox*>(QStringLiteral("expertSpin"));
        QVERIFY(expert && expert->isVisible());
        QCOMPARE(expert->maximum(), 7);
        expert->setValue(5);
        HeatmapView* heatmap = page->tensorPage()->heatmap();
        QTRY_VERIFY_WITH_TIMEOUT(page->tensorPage()->slice().expert == 5u && !heatmap->isComputing() && !heatmap->cells().empty(), kJobTimeoutMs);
        // Whatever the screen allowed, the cells are exactly what the core computes for that grid.
        const gguf::HeatmapGrid grid = heatmap->grid();
        const gguf::TensorInfo* tensor = page->model().findTensor(name.toStdString());
        auto slice = gguf::expertSlice(*tensor, 5);
        QVERIFY(slice);
        std::vector<float> expected(static_cast<std::size_t>(grid.rows) * grid.columns);
        QVERIFY(gguf::reduceHeatmapRows(*slice, grid, 0, grid.rows, expected));
        QCOMPARE(std::memcmp(expected.data(), heatmap->cells().data(), expected.size() * sizeof(float)), 0);
        QCOMPARE(grid.region.rowEnd, 256u);
        QCOMPARE(grid.region.columnEnd, 512u);

        DistributionView* distribution = page->tensorPage()->distribution();
        QTRY_VERIFY_WITH_TIMEOUT(distribution->result().has_value(), kJobTimeoutMs);
        const ManifestExpert& truth = manifest.findTensor(name)->experts[5];
        QCOMPARE(distribution->result()->statistics.count, 512u * 256u);
        QVERIFY(std::fabs(distribution->result()->statistics.mean - truth.mean) < 1e-12);
        QVERIFY(std::fabs(distribution->result()->statistics.rms - truth.rms) < 1e-12);
        page->tensorPage()->tabs()->setCurrentWidget(distribution);
        screenshot(QStringLiteral("tensor-distribution"));
    }

    // A tensor of zeros: the histogram says so instead of drawing empty axes, and the summary's
    // names keep a gap from their numbers ("mean-0.00013" read as one word).
    void zeroTensorSaysEveryValueIsZero()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("zeros.gguf"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(testsupport::oneTensorHeader("zeros", 0, 64, 8));  // 0: F32
            file.write(QByteArray(64 * 8 * 4, '\0'));
        }
        ModelPage* page = openAndWait(path);
        QVERIFY(page);
        selectTensor(page, QStringLiteral("zeros"));
        DistributionView* distribution = page->tensorPage()->distribution();
        QTRY_VERIFY_WITH_TIMEOUT(distribution->result().has_value(), kJobTimeoutMs);
        QVERIFY2(distribution->placeholderText().startsWith(QStringLiteral("Every value is 0")), qPrintable(distribution->placeholderText()));
        auto* summary = distribution->findChild<QLabel*>(QStringLiteral("statisticsLabel"));
        QVERIFY(summary);
        QTextDocument document;
        document.setHtml(summary->text());
        QTextTable* table = nullptr;
        for (QTextFrame* frame : document.rootFrame()->childFrames())
            table = table ? table : qobject_cast<QTextTable*>(frame);
        QVERIFY(table);
        QVERIFY(table->cellAt(3, 0).format().toTableCellFormat().rightPadding() >= 8);
    }

    // Beside the Expert picker a long header wraps instead of being cut.
    void longHeaderWrapsBesideTheExpertPicker()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(model);
        TensorViewPage page;
        page.resize(520, 600);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setTensor(model, model->findTensor("blk.1.ffn_up_exps.weight"));
        auto* header = page.findChild<QLabel*>(QStringLiteral("tensorHeader"));
        QVERIFY(header);
        QVERIFY(header->wordWrap());
        QTRY_VERIFY(header->height() >= header->heightForWidth(header->width()));
        QVERIFY(header->heightForWidth(header->width()) > header->fontMetrics().height());  // two lines at this width
    }

    void blockViewsDecodeTheBlocks()
    {
        ModelPage* page = openAndWait(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        QVERIFY(page);
        const QString name = QStringLiteral("blk.0.ffn_up_exps.weight");
        selectTensor(page, name);
        BlockScalesView* scales = page->tensorPage()->blockScales();
        QTRY_VERIFY_WITH_TIMEOUT(scales->overview().has_value(), kJobTimeoutMs);
        auto slice = gguf::expertSlice(*page->model().findTensor(name.toStdString()), 0);
        auto expected = gguf::computeScaleOverview(*slice, 512, 512, 128);
        QVERIFY(expected);
        QCOMPARE(scales->overview()->scaleStatistics.count, expected->scaleStatistics.count);
        QCOMPARE(scales->overview()->scaleStatistics.max, expected->scaleStatistics.max);
        QCOMPARE(scales->overview()->grid, expected->grid);
        page->tensorPage()->tabs()->setCurrentWidget(scales);
        screenshot(QStringLiteral("tensor-block-scales"));

        BlockInspector* inspector = page->tensorPage()->inspector();
        QSignalSpy shown(inspector, &BlockInspector::blockShown);
        inspector->showBlock(3, 0);
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && inspector->text().contains(QStringLiteral("dmin")), kJobTimeoutMs);
        // The first value of row 3 of expert 0, as the core dequantizes it, is on the page.
        std::vector<float> row(256);
        QVERIFY(gguf::dequantizeRows(*slice->tensor, 3, 4, row));
        QVERIFY(inspector->text().contains(QString::number(static_cast<double>(row[0]), 'g', 9).left(6)));
        QVERIFY(inspector->text().contains(QStringLiteral("Block 3")));
        page->tensorPage()->tabs()->setCurrentWidget(inspector);
        screenshot(QStringLiteral("tensor-block-inspector"));

        RowValuesView* values = page->tensorPage()->rowValues();
        values->showRow(3);
        QTRY_VERIFY_WITH_TIMEOUT(values->values().size() == 64 && values->values()[0] == row[0], kJobTimeoutMs);
        QCOMPARE(std::memcmp(values->values().data(), row.data(), 64 * sizeof(float)), 0);
    }

    void exportsWriteFilesThatReadBack()
    {
        const std::optional<Manifest> loaded = loadFixtureManifest(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        ModelPage* page = openAndWait(manifest.filePath());
        QVERIFY(page);
        const QString name = QStringLiteral("blk.0.ffn_gate_exps.weight");
        selectTensor(page, name);
        page->tensorPage()->findChild<QSpinBox*>(QStringLiteral("expertSpin"))->setValue(2);
        QTemporaryDir dir;
        QSignalSpy finished(page->tensorPage(), &TensorViewPage::exportFinished);
        const QString npy = dir.filePath(QStringLiteral("expert2.npy"));
        QVERIFY(page->tensorPage()->exportSlice(npy).isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kJobTimeoutMs);
        QVERIFY(finished.first().first().toBool());
        const QByteArray bytes = readWholeFile(npy);
        QVERIFY(bytes.startsWith("\x93NUMPY"));
        const int headerLength = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        QVERIFY(bytes.mid(10, headerLength).contains("'shape': (512, 256)"));
        QCOMPARE(sha256Hex(bytes.mid(10 + headerLength)), manifest.findTensor(name)->experts[2].sha256);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temp file left

        HeatmapView* heatmap = page->tensorPage()->heatmap();
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing() && !heatmap->cells().empty(), kJobTimeoutMs);
        for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            const QString path = dir.filePath(QStringLiteral("heatmap.") + suffix);
            QCOMPARE(exportPlot(heatmap->plot(), path, 800, 600), QString());
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        QCOMPARE(QImage(dir.filePath(QStringLiteral("heatmap.png"))).size(), QSize(800, 600));
        QVERIFY(readWholeFile(dir.filePath(QStringLiteral("heatmap.svg"))).contains("<svg"));
        QVERIFY(readWholeFile(dir.filePath(QStringLiteral("heatmap.pdf"))).startsWith("%PDF"));
        QVERIFY(!exportPlot(heatmap->plot(), dir.filePath(QStringLiteral("heatmap.bmpx"))).isEmpty());
    }

    void eventLoopStaysResponsiveDuringLargeJobs()
    {
        QTemporaryDir dir;
        // 8192 × 4096 Q8_0: 32M weights, 34 MiB of blocks, 128 MiB as floats.
        const QString path = writeLargeQ8File(dir.path(), 8192, 4096);
        QVERIFY(!path.isEmpty());
        ModelPage* page = openAndWait(path);
        QVERIFY(page);
        // Measured: the jobs, not the first layout of a page that was never shown.
        page->showTensorsPage();
        QCoreApplication::sendPostedEvents();  // its layout requests, so that the meter sees the jobs alone
        QCoreApplication::processEvents();
        StallMeter stalls;
        selectTensor(page, QStringLiteral("big.q8_0"));
        TensorViewPage* view = page->tensorPage();
        QTRY_VERIFY_WITH_TIMEOUT(!view->heatmap()->isComputing() && !view->heatmap()->cells().empty() && view->distribution()->result().has_value()
                                     && view->blockScales()->overview().has_value(),
                                 kJobTimeoutMs);
        stalls.stop();
        qInfo("longest event-loop stall while heatmap, statistics and block scales of 32M weights ran: %lld ms of GUI-thread CPU "
              "(%lld ms wall clock)", stalls.longestCpuMs(), stalls.longestWallMs());
        // GUI-thread CPU time, not wall time: a loaded machine stretches gaps, not the work done
        // in them. Dequantizing the 32M weights on this thread would take seconds. Under ASan
        // every step of the GUI thread is slower and faults in shadow pages: 40-58 ms there
        // next to another sanitized suite, once 141, so its bound is wider.
#ifdef GGUFX_SANITIZED
        constexpr qint64 kStallBoundMs = 300;
#else
        constexpr qint64 kStallBoundMs = 100;
#endif
        QVERIFY2(stalls.longestCpuMs() < kStallBoundMs,
                 qPrintable(QStringLiteral("the event loop stalled for %1 ms of CPU").arg(stalls.longestCpuMs())));
        QCOMPARE(view->distribution()->result()->statistics.count, 8192u * 4096u);
    }

    void badFileShowsAnErrorAndTheAppGoesOn()
    {
        const int before = m_window->tabs()->count();
        m_window->openFile(fixturePath(QStringLiteral("bad/bad_magic.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(m_window->tabs()->count(), before + 1, kJobTimeoutMs);
        auto* label = m_window->tabs()->widget(before)->findChild<QLabel*>(QStringLiteral("errorLabel"));
        if (!label)
            label = qobject_cast<QLabel*>(m_window->tabs()->widget(before));
        QVERIFY(label);
        QVERIFY(label->text().contains(QStringLiteral("magic")));
        screenshot(QStringLiteral("error"));
        ModelPage* page = openAndWait(fixturePath(QStringLiteral("tiny-llama-Q2_K.gguf")));
        QVERIFY(page);
        QCOMPARE(page->model().tensors().size(), 21u);
    }

    void fileTruncatedWhileOpenShowsAnError()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("shrinking.gguf"));
        QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")), path));
        ModelPage* page = openAndWait(path);
        QVERIFY(page);
        auto* banner = page->findChild<QLabel*>(QStringLiteral("fileChangedBanner"));
        QVERIFY(banner);
        QVERIFY(banner->isHidden());

        // Cut the file just after its header: every tensor's bytes are gone from the mapping.
        const std::uint64_t dataOffset = page->model().primary().dataOffset();
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.resize(static_cast<qint64>(dataOffset)));
        }
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isHidden(), kJobTimeoutMs);
        QVERIFY2(banner->text().contains(QStringLiteral("truncated")), qPrintable(banner->text()));

        // Views still open tensors; they report the change instead of crashing or showing zeros.
        selectTensor(page, QStringLiteral("blk.1.ffn_up_exps.weight"));
        HeatmapView* heatmap = page->tensorPage()->heatmap();
        auto* status = heatmap->findChild<QLabel*>(QStringLiteral("hoverLabel"));
        QVERIFY(status);
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing() && status->text().contains(QStringLiteral("changed on disk")), kJobTimeoutMs);
        const std::optional<Manifest> manifest = loadFixtureManifest(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(manifest);
        QCOMPARE(page->model().tensors().size(), manifest->tensors.size());
        screenshot(QStringLiteral("file-changed"));
    }

    // The tree and the table highlight the one tensor shown: Alt+Down in the tree moves through the
    // tree's order and stays grouped (it jumped to the flat table and picked its first row), a
    // tree row highlighted by an older choice no longer looks current (clicking it did nothing),
    // and a filter never swaps the shown tensor for a neighbour nobody chose.
    void treeAndTableAgreeOnTheShownTensor()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(model);
        TensorBrowser browser(model);
        browser.resize(700, 600);
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QSignalSpy shown(&browser, &TensorBrowser::tensorSelected);
        const auto tensorAt = [&](const QModelIndex& treeRow) {
            return browser.treeProxy()->mapToSource(treeRow).data(TensorTreeModel::TensorIndexRole).toInt();
        };
        browser.setGroupedByLayer(true);
        QSortFilterProxyModel* tree = browser.treeProxy();
        const QModelIndex layer1 = tree->index(1, 0);
        QVERIFY(tree->rowCount(layer1) >= 3);
        const int first = tensorAt(tree->index(0, 0, layer1));
        const int second = tensorAt(tree->index(1, 0, layer1));
        browser.treeView()->setCurrentIndex(tree->index(0, 0, layer1));
        QCOMPARE(browser.currentTensor(), first);
        browser.selectAdjacent(+1);
        QVERIFY(browser.treeView()->isVisible());
        QCOMPARE(browser.currentTensor(), second);
        QCOMPARE(shown.last().at(0).toInt(), second);
        QCOMPARE(tensorAt(browser.treeView()->currentIndex()), second);
        browser.selectAdjacent(-1);
        QCOMPARE(browser.currentTensor(), first);

        // Choose another tensor in the flat table; back in the tree, the old row is no longer
        // highlighted, and clicking it shows it again.
        browser.setGroupedByLayer(false);
        const int other = browser.tableProxy()->mapToSource(browser.tableProxy()->index(0, 0)).row();
        QVERIFY(other != first);
        browser.tableView()->setCurrentIndex(browser.tableProxy()->index(0, 0));
        QCOMPARE(browser.currentTensor(), other);
        browser.setGroupedByLayer(true);
        QCOMPARE(tensorAt(browser.treeView()->currentIndex()), other);
        const QModelIndex firstRow = tree->index(0, 0, tree->index(1, 0));
        browser.treeView()->scrollTo(firstRow);
        QTest::mouseClick(browser.treeView()->viewport(), Qt::LeftButton, {}, browser.treeView()->visualRect(firstRow).center());
        QCOMPARE(browser.currentTensor(), first);
        QCOMPARE(shown.last().at(0).toInt(), first);

        // A filter that hides the shown tensor: nothing else is shown or highlighted; cleared,
        // the tensor is highlighted again.
        const int emitted = static_cast<int>(shown.count());
        const std::string_view stored = model->tensors()[static_cast<std::size_t>(first)].name;
        const QString name = QString::fromUtf8(stored.data(), static_cast<qsizetype>(stored.size()));
        browser.setFilterText(QStringLiteral("^(?!%1$)").arg(QRegularExpression::escape(name)));
        QTRY_COMPARE_WITH_TIMEOUT(browser.tableProxy()->rowCount(), static_cast<int>(model->tensors().size()) - 1, kJobTimeoutMs);
        QCOMPARE(shown.count(), emitted);
        QCOMPARE(browser.currentTensor(), first);
        QVERIFY(browser.treeView()->selectionModel()->selectedRows().isEmpty());
        QVERIFY(browser.tableView()->selectionModel()->selectedRows().isEmpty());
        browser.setFilterText(QString());
        QTRY_COMPARE_WITH_TIMEOUT(browser.tableProxy()->rowCount(), static_cast<int>(model->tensors().size()), kJobTimeoutMs);
        QCOMPARE(shown.count(), emitted);
        QCOMPARE(tensorAt(browser.treeView()->currentIndex()), first);
        QCOMPARE(browser.tableProxy()->mapToSource(browser.tableView()->currentIndex()).row(), first);
    }

    // Counts follow the filter, the Shape column fits, the header never widens
    // the page, and Row values gives the value column the room.
    void layoutFitsTheContent()
    {
        auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")).toStdString());
        QVERIFY(model);
        TensorBrowser browser(model.value());
        auto* count = browser.findChild<QLabel*>(QStringLiteral("tensorMatchCount"));
        QVERIFY(count);
        const int all = browser.tableProxy()->rowCount();
        QCOMPARE(count->text(), QStringLiteral("%1 tensors").arg(all));
        browser.setFilterText(QStringLiteral("attn_q"));
        QTRY_VERIFY_WITH_TIMEOUT(browser.tableProxy()->rowCount() < all, kJobTimeoutMs);
        const int shown = browser.tableProxy()->rowCount();
        QCOMPARE(count->text(), QStringLiteral("%1 of %2 tensors").arg(shown).arg(all));
        QSortFilterProxyModel* tree = browser.treeProxy();
        QVERIFY(tree->rowCount() > 0);
        const QModelIndex group = tree->index(0, 0);
        const int groupAll = tree->sourceModel()->rowCount(tree->mapToSource(group));
        QVERIFY2(group.data().toString().contains(QStringLiteral("(%1 of %2 tensor").arg(tree->rowCount(group)).arg(groupAll)),
                 qPrintable(group.data().toString()));
        browser.setFilterText(QString());
        QTRY_COMPARE_WITH_TIMEOUT(browser.tableProxy()->rowCount(), all, kJobTimeoutMs);
        QVERIFY(!tree->index(0, 0).data().toString().contains(QLatin1String(" of ")));

        const QFontMetrics metrics(browser.tableView()->font());
        for (int row = 0; row < all; ++row) {
            const QString shape = browser.tableProxy()->index(row, TensorTableModel::Shape).data().toString();
            QVERIFY2(metrics.horizontalAdvance(shape) < browser.tableView()->columnWidth(TensorTableModel::Shape), qPrintable(shape));
        }
        // The Tensors page opens with the index pane wide enough for name, type and shape whole:
        // "[512, 256, 8]" was cut at the pane's edge.
        QSettings().remove(QStringLiteral("modelPage/tensorSplitter"));
        ModelPage modelPage(model.value());
        modelPage.resize(1280, 800);
        modelPage.show();
        modelPage.showTensorsPage();
        QVERIFY(QTest::qWaitForWindowExposed(&modelPage));
        QTableView* pane = modelPage.tensorBrowser()->tableView();
        // Bits/weight too: the pane ended inside it ("4." for 4.50).
        for (const int column : {int(TensorTableModel::Shape), int(TensorTableModel::BitsPerWeight)})
            QVERIFY2(pane->columnViewportPosition(column) + pane->columnWidth(column) <= pane->viewport()->width(),
                     qPrintable(QStringLiteral("column %1: %2 + %3 > %4").arg(column).arg(pane->columnViewportPosition(column))
                                    .arg(pane->columnWidth(column)).arg(pane->viewport()->width())));
        for (int row = 0; row < all; ++row) {
            const QString bits = pane->model()->index(row, TensorTableModel::BitsPerWeight).data().toString();
            QVERIFY2(metrics.horizontalAdvance(bits) < pane->columnWidth(TensorTableModel::BitsPerWeight), qPrintable(bits));
        }
        for (int row = 0; row < all; ++row) {
            const QString name = pane->model()->index(row, TensorTableModel::Name).data().toString();
            QVERIFY2(metrics.horizontalAdvance(name) < pane->columnWidth(TensorTableModel::Name), qPrintable(name));
        }

        TensorViewPage page;
        const int narrow = page.minimumSizeHint().width();
        page.setTensor(model.value(), model.value()->findTensor("blk.0.ffn_gate_exps.weight"));
        QCOMPARE(page.minimumSizeHint().width(), narrow);

        auto* values = page.rowValues()->findChild<QTableWidget*>(QStringLiteral("valuesTable"));
        QVERIFY(values);
        values->resize(400, 300);
        const int valueWidth = metrics.horizontalAdvance(QStringLiteral("-1.23456789e-38"));
        QVERIFY(values->columnWidth(2) < metrics.horizontalAdvance(QStringLiteral("0x00000000")) * 2);
        QVERIFY(!values->wordWrap());
        QVERIFY(values->minimumWidth() >= values->columnWidth(0) + values->columnWidth(2) + valueWidth);
    }

    // "Current plot" is the plot on screen, with a proposed name and a
    // title; scales and mins have their own axes.
    void plotExportsTakeTheVisiblePlotWithATitle()
    {
        ModelPage* page = openAndWait(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        QVERIFY(page);
        const QString name = QStringLiteral("blk.0.attn_q.weight");
        selectTensor(page, name);
        TensorViewPage* view = page->tensorPage();
        BlockScalesView* scales = view->blockScales();
        QTRY_VERIFY_WITH_TIMEOUT(scales->overview().has_value(), kJobTimeoutMs);
        view->tabs()->setCurrentWidget(scales);
        scales->plotTabs()->setCurrentWidget(scales->histogramPlot());
        QCOMPARE(view->currentPlot(), scales->histogramPlot());
        scales->plotTabs()->setCurrentWidget(scales->heatmapPlot());
        QCOMPARE(view->currentPlot(), scales->heatmapPlot());
        QVERIFY(view->proposedPlotPath().endsWith(name + QStringLiteral(".scale-map.png")));
        // Q4_K has mins: the min map is offered, filled from the core's grid of mins.
        QVERIFY(scales->plotTabs()->isTabEnabled(scales->plotTabs()->indexOf(scales->minHeatmapPlot())));
        scales->plotTabs()->setCurrentWidget(scales->minHeatmapPlot());
        QCOMPARE(view->currentPlot(), scales->minHeatmapPlot());
        QVERIFY(view->proposedPlotPath().endsWith(name + QStringLiteral(".min-map.png")));
        auto expected = gguf::computeScaleOverview(gguf::wholeTensor(*page->model().findTensor(name.toStdString())), 512, 512, 128);
        QVERIFY(expected);
        QCOMPARE(scales->overview()->minGrid, expected->minGrid);
        QCOMPARE(expected->minGrid.size(), expected->grid.size());
        QVERIFY(expected->minGrid != expected->grid);
        scales->plotTabs()->setCurrentWidget(scales->heatmapPlot());
        QVERIFY(view->plotTitle().contains(name));
        QVERIFY(view->plotTitle().contains(QLatin1String("tiny-llama-Q4_K.gguf")));
        QVERIFY(view->plotTitle().contains(QLatin1String("q4_K"), Qt::CaseInsensitive));

        // Q4_K has mins: they get a panel with their own axes, not the scales' x-axis.
        QCustomPlot* histograms = scales->histogramPlot();
        QCOMPARE(histograms->axisRectCount(), 2);
        QVERIFY(histograms->axisRect(0)->axis(QCPAxis::atBottom) != histograms->axisRect(1)->axis(QCPAxis::atBottom));
        const QCPRange scaleRange = histograms->axisRect(0)->axis(QCPAxis::atBottom)->range();
        QVERIFY(scaleRange.upper <= scales->overview()->scaleStatistics.max * 1.5 + 1e-30);

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("map.png"));
        const int layoutRows = scales->heatmapPlot()->plotLayout()->rowCount();
        QCOMPARE(view->exportCurrentPlot(path), QString());
        QVERIFY(QFileInfo(path).size() > 1000);
        QCOMPARE(scales->heatmapPlot()->plotLayout()->rowCount(), layoutRows);  // the title was only in the file
    }

    // Text that is not a regular expression is matched as text, and the count says so.
    void invalidFilterExpressionSaysSo()
    {
        auto model = gguf::Model::open(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")).toStdString());
        QVERIFY(model);
        TensorBrowser browser(model.value());
        const int all = browser.tableProxy()->rowCount();
        browser.setFilterText(QStringLiteral("blk.0.("));
        QTRY_VERIFY_WITH_TIMEOUT(browser.matchCount()->text().contains(QLatin1String("not a regular expression")), kJobTimeoutMs);
        QCOMPARE(browser.tableProxy()->rowCount(), 0);  // no tensor name holds "blk.0.(" literally
        QVERIFY2(browser.matchCount()->toolTip().contains(QLatin1String("Not a regular expression: ")), qPrintable(browser.matchCount()->toolTip()));
        browser.setFilterText(QStringLiteral("blk\\.0\\."));
        QTRY_VERIFY_WITH_TIMEOUT(browser.tableProxy()->rowCount() > 0 && browser.tableProxy()->rowCount() < all, kJobTimeoutMs);
        QVERIFY2(!browser.matchCount()->text().contains(QLatin1String("regular expression")), qPrintable(browser.matchCount()->text()));
        QCOMPARE(browser.matchCount()->toolTip(), QString());
    }

    // The expert box says how many experts there are; an expert-less tensor has no box.
    void expertBoxSaysHowMany()
    {
        const auto model = openFixtureModel("tiny-moe-Q4_K.gguf");
        QVERIFY(model);
        TensorViewPage page;
        page.setTensor(model, model->findTensor("blk.0.ffn_down_exps.weight"));
        auto* spin = page.findChild<QSpinBox*>(QStringLiteral("expertSpin"));
        QVERIFY(spin);
        QCOMPARE(spin->suffix(), QStringLiteral(" of 8"));
        QCOMPARE(spin->maximum(), 7);
        QVERIFY(spin->toolTip().contains(QLatin1String("0 to 7")));
        page.setTensor(model, model->findTensor("blk.0.attn_q.weight"));
        QCOMPARE(spin->suffix(), QString());
    }

    // 6.5625 bits per weight (q6_K) reads 6.562, as the command line prints it (printf's rounding
    // of the exact value), not 6.563.
    void bitsPerWeightRoundLikeTheCommandLine()
    {
        const auto model = openFixtureModel("tiny-llama-Q6_K.gguf");
        QVERIFY(model);
        TensorTableModel table;
        table.setModel(model);
        int q6 = -1;
        for (int row = 0; row < table.rowCount() && q6 < 0; ++row)
            if (table.index(row, TensorTableModel::Type).data().toString() == QLatin1String("q6_K"))
                q6 = row;
        QVERIFY(q6 >= 0);
        QCOMPARE(table.index(q6, TensorTableModel::BitsPerWeight).data().toString(), QStringLiteral("6.562"));
        TensorViewPage page;
        page.setTensor(model, &model->tensors()[static_cast<std::size_t>(q6)]);
        const auto* header = page.findChild<QLabel*>(QStringLiteral("tensorHeader"));
        QVERIFY(header);
        QVERIFY2(header->text().contains(QLatin1String("6.562")) && !header->text().contains(QLatin1String("6.563")), qPrintable(header->text()));
        QCOMPARE(gguf::formatFixed(6.5625, 3), std::string("6.562"));
        QCOMPARE(gguf::formatFixed(6.5635, 3), std::string("6.564"));  // not a tie in binary: 6.56350000000000033
        QCOMPARE(gguf::formatFixed(-0.125, 2), std::string("-0.12"));
    }

    void screenshotsOfEveryPage()
    {
        // A clean window: the pages of one model, without the tabs earlier tests left open.
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1280, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        ModelPage* page = openAndWait(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        QVERIFY(page);
        for (int i = 0; i < page->pages()->count(); ++i) {
            page->pages()->setCurrentIndex(i);
            screenshot(QStringLiteral("page-") + page->pages()->tabText(i).toLower().remove(QLatin1Char('&')));
        }
        QVERIFY(QFileInfo::exists(testsupport::screenshotFolder() + QStringLiteral("/page-tensors.png")));
    }

    void cleanupTestCase()
    {
        m_window.reset();
    }
};

QTEST_MAIN(TestGuiTensorView)
#include "tst_gui_tensorview.moc"
