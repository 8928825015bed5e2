// The importance-matrix views driven offscreen on the tiny-moe fixtures: the strip under the
// weight heatmap shows llama-quantize's weights of the tensor and expert the page shows, follows
// the heatmap's column axis and lines its plot area up with it; the per-model page lists the
// coverage, the validation, the routing map with its rarely routed experts marked, and the
// statistics llama-imatrix prints; File › Open Importance Matrix opens both.

#include "Screenshot.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/compare/ModelComparison.h"
#include "ui/imatrix/ColumnErrorView.h"
#include "core/imatrix/ColumnImportance.h"
#include "ui/imatrix/ExpertRoutingMap.h"
#include "ui/session/ImatrixLoader.h"
#include "ui/imatrix/ImatrixPage.h"
#include "ui/imatrix/ImatrixStatisticsView.h"
#include "ui/imatrix/ImportanceStrip.h"
#include "ui/shell/OpenImatrix.h"
#include "ui/shell/ConvertDialog.h"
#include "ui/compare/CompareDialog.h"
#include "ui/recipe/RecipePage.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ModelPage.h"
#include "ui/tensor/HeatmapView.h"
#include "ui/tensor/TensorViewPage.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QTimer>
#include <QDir>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>
#include <qcustomplot.h>

using namespace testsupport;

namespace {

std::shared_ptr<const LoadedImatrix> loadImatrix(const QString& name, const gguf::Model* model)
{
    auto loaded = LoadedImatrix::load(fixturePath("llama.cpp/" + name), model);
    if (!loaded)
        qFatal("%s", loaded.error().toString().c_str());
    return loaded.value();
}

bool waitForHeatmap(HeatmapView* heatmap)
{
    QSignalSpy ready(heatmap, &ZoomableMatrixView::heatmapReady);
    return heatmap->isComputing() ? ready.wait(kHangGuardMs) : true;
}

}  // namespace

class TestGuiImatrix : public QObject {
    Q_OBJECT

private slots:
    void stripUnderHeatmapFollowsTensorAndAxis()
    {
        const auto model = openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(model);
        const auto imatrix = loadImatrix("tiny-moe.imatrix.gguf", model.get());
        TensorViewPage page;
        page.resize(1000, 800);
        page.show();
        const gguf::TensorInfo* down = model->findTensor("blk.1.ffn_down_exps.weight");
        page.setTensor(model, down);
        page.selectExpertIndex(6);
        QVERIFY(waitForHeatmap(page.heatmap()));
        ImportanceStrip* strip = attachImportanceStrip(&page, imatrix);
        QVERIFY(strip);
        QCOMPARE(strip->parentWidget(), page.heatmap());
        QCOMPARE(attachImportanceStrip(&page, imatrix), strip);  // once per page
        // Expert 6 of layer 1 saw 66 tokens: its weights are its own sums / 66.
        const gguf::ImportanceEntry* entry = imatrix->matrix->find("blk.1.ffn_down_exps.weight");
        QCOMPARE(strip->values(), entry->quantWeights(6));
        QVERIFY2(strip->statusText().contains("expert 6"), qPrintable(strip->statusText()));
        QCOMPARE(strip->topColumns()->count(), ImportanceStrip::kTopColumns);
        const gguf::ImportantColumn best = gguf::topColumns(entry->quantWeights(6), 1).front();
        QVERIFY(strip->topColumns()->item(0)->text().startsWith(QStringLiteral("column %1:").arg(best.column)));

        // Another expert, another tensor: the strip follows the page once its heatmap is ready.
        page.selectExpertIndex(2);
        QVERIFY(waitForHeatmap(page.heatmap()));
        QTRY_COMPARE_WITH_TIMEOUT(strip->values(), entry->quantWeights(2), kHangGuardMs);
        page.setTensor(model, model->findTensor("blk.0.attn_q.weight"));
        QVERIFY(waitForHeatmap(page.heatmap()));
        QTRY_COMPARE_WITH_TIMEOUT(strip->values(), imatrix->matrix->find("blk.0.attn_q.weight")->quantWeights(0), kHangGuardMs);
        page.setTensor(model, model->findTensor("token_embd.weight"));
        QVERIFY(waitForHeatmap(page.heatmap()));
        QTRY_VERIFY_WITH_TIMEOUT(strip->values().empty(), kHangGuardMs);
        QVERIFY(strip->statusText().contains("has no entry"));
        // Said over the plot too, instead of empty axes; gone again once there are values.
        QVERIFY2(strip->placeholderText().contains("has no entry"), qPrintable(strip->placeholderText()));

        // The column axis: zooming the heatmap moves the strip; the plot areas share their edges.
        page.setTensor(model, model->findTensor("blk.0.attn_q.weight"));
        QVERIFY(waitForHeatmap(page.heatmap()));
        QTRY_VERIFY_WITH_TIMEOUT(!strip->values().empty(), kHangGuardMs);
        QCOMPARE(strip->placeholderText(), QString());
        QCustomPlot* heatmapPlot = page.heatmap()->plot();
        heatmapPlot->xAxis->setRange(40.5, 90.5);
        QCOMPARE(strip->plot()->xAxis->range().lower, 40.5);
        QCOMPARE(strip->plot()->xAxis->range().upper, 90.5);
        heatmapPlot->replot();
        strip->plot()->replot();
        heatmapPlot->replot();  // the strip lines up after each heatmap replot
        strip->plot()->replot();
        QCOMPARE(strip->plot()->axisRect()->left() + strip->plot()->mapTo(&page, QPoint(0, 0)).x(),
                 heatmapPlot->axisRect()->left() + heatmapPlot->mapTo(&page, QPoint(0, 0)).x());
        QCOMPARE(strip->plot()->axisRect()->right() + strip->plot()->mapTo(&page, QPoint(0, 0)).x(),
                 heatmapPlot->axisRect()->right() + heatmapPlot->mapTo(&page, QPoint(0, 0)).x());
    }

    void stripWithoutMatrixSaysSo()
    {
        ImportanceStrip strip;
        QVERIFY(strip.statusText().contains("Open Importance Matrix"));
        QVERIFY(strip.values().empty());
    }

    void pageShowsCoverageRoutingAndStatistics()
    {
        const auto model = openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(model);
        const auto imatrix = loadImatrix("tiny-moe.imatrix.gguf", model.get());
        ImatrixPage page(imatrix);
        page.resize(1100, 800);
        page.show();
        QVERIFY(page.title().contains("tiny-moe.imatrix.gguf"));
        const QString summary = page.summary()->text();
        QVERIFY2(summary.contains("16 entries, 64 chunks of 128 tokens"), qPrintable(summary));
        QVERIFY(summary.contains("/usr/share/common-licenses/GPL-3"));
        QVERIFY(summary.contains("16 of 16 entries match a tensor, 0 error(s), 0 warning(s); 2 matrices"));
        QCOMPARE(page.coverage()->rowCount(), 16);
        QCOMPARE(page.coverage()->columnCount(), 5);
        bool foundDown = false;
        for (int r = 0; r < 16; ++r)
            if (page.coverage()->item(r, 0)->text() == "blk.0.ffn_down_exps.weight") {
                foundDown = true;
                QCOMPARE(page.coverage()->item(r, 2)->data(Qt::DisplayRole).toLongLong(), 8);
                QCOMPARE(page.coverage()->item(r, 3)->data(Qt::DisplayRole).toLongLong(), 7330);
            }
        QVERIFY(foundDown);

        // Routing: 2 layers x 8 experts, layer 1's experts 1 (200 tokens) and 6 (66) marked.
        ExpertRoutingMap* routing = page.routing();
        QCOMPARE(routing->map()->data()->keySize(), 8);
        QCOMPARE(routing->map()->data()->valueSize(), 2);
        QCOMPARE(routing->map()->data()->cell(6, 1), std::log10(66.0 / 2048.0));
        QCOMPARE(routing->map()->data()->cell(2, 0), std::log10(7330.0 / 2048.0));
        QCOMPARE(routing->markerCount(), 2);
        QCOMPARE(routing->rareList()->count(), 2);
        QVERIFY(routing->rareList()->item(1)->text().startsWith("layer 1, expert 6: 66 tokens, 3.2% of an even share"));

        // The statistics tab: llama-imatrix's table as a table, one figure per cell, under its
        // own header, with the tool's decimals; its text, row for row, is what Copy as Text copies.
        const QString statistics = page.statistics()->llamaImatrixText();
        QVERIFY(statistics.contains("    1\tffn_down_exps       \t14776145.00\t  0.0000\t 54314.2734\t3607.46\t8232.76\t  100.00%\t  4096\t    9.7035\t 80.86%\t     12.40%\t  0.0491"));
        QVERIFY(statistics.contains("    0\t       5481.49\t    3.4101%\t0.0000"));
        QTableWidget* tensors = page.statistics()->tensorTable();
        QCOMPARE(tensors->rowCount(), static_cast<int>(imatrix->statistics.tensors.size()));
        QCOMPARE(tensors->columnCount(), 13);
        QCOMPARE(tensors->horizontalHeaderItem(2)->text(), QStringLiteral("Σ(Act²)"));
        QCOMPARE(tensors->horizontalHeaderItem(12)->text(), QStringLiteral("CosSim"));
        int downRow = -1;
        for (int r = 0; r < tensors->rowCount(); ++r)
            if (tensors->item(r, 0)->text() == "1" && tensors->item(r, 1)->text() == "ffn_down_exps")
                downRow = r;
        QVERIFY(downRow >= 0);
        const QStringList expected{"1", "ffn_down_exps", "14776145.00", "0.0000", "54314.2734", "3607.46", "8232.76", "100.00%", "4096",
                                   "9.7035", "80.86%", "12.40%", "0.0491"};
        for (int c = 0; c < expected.size(); ++c)
            QCOMPARE(tensors->item(downRow, c)->text(), expected[c]);
        QCOMPARE(tensors->item(downRow, 1)->toolTip(), QStringLiteral("blk.1.ffn_down_exps.weight"));
        QTableWidget* layers = page.statistics()->layerTable();
        QCOMPARE(layers->rowCount(), 2);
        QCOMPARE(layers->item(0, 0)->text(), QStringLiteral("0"));
        QCOMPARE(layers->item(0, 1)->text(), QStringLiteral("5481.49"));
        QCOMPARE(layers->item(0, 2)->text(), QStringLiteral("3.4101%"));
        QCOMPARE(layers->item(0, 3)->text(), QStringLiteral("0.0000"));
        // Sorting by a figure sorts by its value, not its text.
        tensors->sortByColumn(2, Qt::DescendingOrder);
        for (int r = 1; r < tensors->rowCount(); ++r)
            QVERIFY(tensors->item(r - 1, 2)->text().toDouble() >= tensors->item(r, 2)->text().toDouble());
        QVERIFY(page.statistics()->skippedLabel()->text().contains("Every entry has statistics"));

        // Top columns: pick a tensor, see its pooled importance.
        page.tensorCombo()->setCurrentText("blk.0.ffn_gate_exps.weight");
        QCOMPARE(page.columns()->values(), gguf::columnImportance(*imatrix->matrix->find("blk.0.ffn_gate_exps.weight")));
        QVERIFY(page.columns()->topColumns()->item(0)->text().startsWith("column 148:"));
        QVERIFY(page.issues()->item(0)->text().contains("no importance (quantized blind): token_embd.weight, output.weight"));
    }

    // On the importance page the strip has its own column axis: every column of the entry in
    // view, numbered and labelled, zoomed and dragged sideways; under a heatmap it follows the
    // heatmap's instead (stripUnderHeatmapFollowsTensorAndAxis).
    void pageColumnsShowEveryColumn()
    {
        const auto model = openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(model);
        const auto imatrix = loadImatrix("tiny-moe.imatrix.gguf", model.get());
        ImatrixPage page(imatrix);
        page.resize(1100, 800);
        page.show();
        page.tensorCombo()->setCurrentText("blk.1.ffn_down_exps.weight");
        QCustomPlot* plot = page.columns()->plot();
        const auto columns = static_cast<double>(page.columns()->values().size());
        QCOMPARE(columns, 512.0);
        QVERIFY2(plot->xAxis->range().lower <= 0.0 && plot->xAxis->range().upper >= columns - 1.0,
                 qPrintable(QStringLiteral("%1 .. %2").arg(plot->xAxis->range().lower).arg(plot->xAxis->range().upper)));
        QVERIFY(plot->xAxis->range().upper < columns);
        QVERIFY(plot->xAxis->tickLabels());
        QCOMPARE(plot->xAxis->label(), QStringLiteral("input column"));
        QVERIFY(plot->interactions().testFlag(QCP::iRangeZoom) && plot->interactions().testFlag(QCP::iRangeDrag));
        QCOMPARE(plot->axisRect()->rangeZoom(), Qt::Horizontal);
        plot->replot();
        QVERIFY(plot->xAxis->tickVectorLabels().contains(QStringLiteral("500")));

        // The coverage columns explain what they count.
        const QString tokens = page.coverage()->horizontalHeaderItem(3)->toolTip();
        const QString chunks = page.coverage()->horizontalHeaderItem(4)->toolTip();
        QVERIFY2(tokens.contains("calibration tokens") && tokens.contains("busiest expert"), qPrintable(tokens));
        QVERIFY2(chunks.contains("chunk size, 128 tokens"), qPrintable(chunks));

        // Under a heatmap the strip has no axis of its own.
        TensorViewPage tensors;
        tensors.setTensor(model, model->findTensor("blk.0.attn_q.weight"));
        QVERIFY(waitForHeatmap(tensors.heatmap()));
        ImportanceStrip* strip = attachImportanceStrip(&tensors, imatrix);
        QVERIFY(!strip->plot()->xAxis->tickLabels());
        QCOMPARE(strip->plot()->interactions(), QCP::Interactions());
    }

    // Hovering the routing map tells the cell's tokens and share of an even split.
    void routingMapTellsCountsOnHover()
    {
        const auto model = openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(model);
        ImatrixPage page(loadImatrix("tiny-moe.imatrix.gguf", model.get()));
        page.resize(1100, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        ExpertRoutingMap* routing = page.routing();
        QCOMPARE(routing->cellText(6, 1), QStringLiteral("layer 1, expert 6: 66 tokens, 3.2% of an even share (2048 tokens)"));
        QVERIFY(routing->cellText(2, 0).startsWith("layer 0, expert 2: 7330 tokens"));
        QCOMPARE(routing->cellText(8, 0), QString());
        QCOMPARE(routing->cellText(0, 2), QString());
        QCustomPlot* plot = routing->plot();
        plot->replot();
        const QPointF at(plot->xAxis->coordToPixel(6), plot->yAxis->coordToPixel(1));
        QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(plot, &move);
        QCOMPARE(plot->toolTip(), routing->cellText(6, 1));
    }

    void legacyPageHasNoRoutingMap()
    {
        const auto model = openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(model);
        ImatrixPage page(loadImatrix("tiny-moe.imatrix.dat", model.get()));
        QVERIFY(page.summary()->text().contains("legacy .dat format"));
        QVERIFY(page.routing()->findChild<QLabel*>("routingSummary")->text().contains("legacy format"));
        QCOMPARE(page.routing()->markerCount(), 0);
        // Bound to the model: 8 experts of 256 columns.
        for (int r = 0; r < page.coverage()->rowCount(); ++r)
            if (page.coverage()->item(r, 0)->text() == "blk.1.ffn_up_exps.weight")
                QCOMPARE(page.coverage()->item(r, 2)->data(Qt::DisplayRole).toLongLong(), 8);
    }

    void loaderReportsFailures()
    {
        ImatrixLoader loader;
        QSignalSpy failed(&loader, &ImatrixLoader::failed);
        loader.load(fixturePath("tiny-moe-F16.gguf"), nullptr);
        QVERIFY(failed.wait(kHangGuardMs));
        QVERIFY(failed.front().at(1).toString().contains("missing imatrix metadata key"));
    }

    void columnErrorNextToImportance()
    {
        const auto reference = openFixtureModel("tiny-moe-F16.gguf");
        const auto other = openFixtureModel("llama.cpp/tiny-moe-imat-Q4_K_M.gguf");
        QVERIFY(reference && other);
        const auto imatrix = loadImatrix("tiny-moe.imatrix.gguf", reference.get());
        gguf::ComparisonOptions options;
        options.referenceIndex = 0;
        options.importance = imatrix->matrix;
        auto created = gguf::ModelComparison::create({reference, other}, options);
        QVERIFY(created);
        const auto comparison = std::make_shared<const gguf::ModelComparison>(std::move(created.value()));
        std::size_t row = 0;
        while (comparison->rows()[row].reference->name != "blk.1.ffn_down_exps.weight")
            ++row;
        ColumnErrorView view;
        view.resize(1000, 700);
        view.show();
        QSignalSpy ready(&view, &ColumnErrorView::profileReady);
        view.setCell(comparison, row, 0, 6);
        QVERIFY(ready.wait(kHangGuardMs));
        const auto expected = gguf::computeColumnErrorProfile(*comparison, row, 0, 6);
        QVERIFY(expected && view.profile());
        QCOMPARE(view.profile()->weightedError, expected->weightedError);
        QCOMPARE(view.profile()->importance, imatrix->matrix->find("blk.1.ffn_down_exps.weight")->quantWeights(6));
        QCOMPARE(view.importancePlot()->graph(0)->data()->size(), 512);
        QCOMPARE(view.errorPlot()->graphCount(), 2);
        QCOMPARE(view.columnList()->count(), ColumnErrorView::kListedColumns);
        QVERIFY2(view.summaryText().contains("expert 6: the most important 51 of 512 columns hold"), qPrintable(view.summaryText()));
        // One column axis for both plots.
        view.errorPlot()->xAxis->setRange(100.5, 200.5);
        QCOMPARE(view.importancePlot()->xAxis->range().lower, 100.5);
        view.importancePlot()->xAxis->setRange(10.5, 20.5);
        QCOMPARE(view.errorPlot()->xAxis->range().upper, 20.5);
        // The column listed first carries the most weighted error.
        const auto top = std::max_element(expected->weightedError.begin(), expected->weightedError.end()) - expected->weightedError.begin();
        QVERIFY(view.columnList()->item(0)->text().startsWith(QStringLiteral("column %1:").arg(top)));
    }

    // A matrix opened for a model is what Compare, Recipe and Convert start with for it, also
    // from the matrix's own tab; once its page is closed they start without one again.
    void openedMatrixIsPreselected()
    {
        MainWindow window;
        window.show();
        window.openFile(fixturePath("tiny-moe-F16.gguf"));
        QTRY_VERIFY_WITH_TIMEOUT(window.currentModelPage() != nullptr, kHangGuardMs);
        ModelPage* modelPage = window.currentModelPage();
        QCOMPARE(modelPage->importanceMatrixPath(), QString());
        const QString path = fixturePath("llama.cpp/tiny-moe.imatrix.gguf");
        openImportanceMatrix(&window, path);
        QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<ImatrixPage*>(window.tabs()->currentWidget()) != nullptr, kHangGuardMs);
        QCOMPARE(modelPage->importanceMatrixPath(), path);
        QCOMPARE(window.modelPageInView(), modelPage);  // on the matrix's tab

        const auto action = [&window](const QString& text) {
            for (QAction* a : window.findChildren<QAction*>())
                if (a->text() == text)
                    return a;
            return static_cast<QAction*>(nullptr);
        };
        // The dialogs are modal: read them from inside their event loop, then close them.
        const auto inspectDialog = [](QString* seen) {
            QTimer::singleShot(0, [seen]() {
                auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
                QVERIFY(dialog);
                if (auto* compare = qobject_cast<CompareDialog*>(dialog))
                    *seen = compare->importanceMatrixPath();
                else if (auto* convert = qobject_cast<ConvertDialog*>(dialog))
                    *seen = convert->importanceMatrixPath();
                dialog->reject();
            });
        };
        QString seen;
        inspectDialog(&seen);
        action(MainWindow::tr("Compare &Quant Levels…"))->trigger();
        QCOMPARE(seen, path);
        seen.clear();
        inspectDialog(&seen);
        action(MainWindow::tr("Con&vert…"))->trigger();
        QCOMPARE(seen, path);
        action(MainWindow::tr("Recipe and Mix &Planner"))->trigger();
        auto* recipe = qobject_cast<RecipePage*>(window.tabs()->currentWidget());
        QVERIFY(recipe);
        QTRY_VERIFY_WITH_TIMEOUT(recipe->importance() != nullptr, kHangGuardMs);
        QCOMPARE(QString::fromStdString(recipe->importance()->path()), path);

        // Closing the matrix's page takes it back.
        for (int i = 0; i < window.tabs()->count(); ++i)
            if (qobject_cast<ImatrixPage*>(window.tabs()->widget(i)))
                emit window.tabs()->tabCloseRequested(i);
        QTRY_COMPARE_WITH_TIMEOUT(modelPage->importanceMatrixPath(), QString(), kHangGuardMs);
        window.tabs()->setCurrentWidget(modelPage);
        inspectDialog(&seen);
        action(MainWindow::tr("Compare &Quant Levels…"))->trigger();
        QCOMPARE(seen, QString());
    }

    // A model opened as an importance matrix: the whole reason, in a tab of its own (the status
    // bar cut it short), the window otherwise as it was.
    void aModelOpenedAsAMatrixSaysWhyInFull()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        openImportanceMatrix(&window, fixturePath("tiny-llama-Q4_K.gguf"));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kHangGuardMs);
        auto* label = qobject_cast<QLabel*>(window.tabs()->currentWidget());
        QVERIFY(label);
        QCOMPARE(label->objectName(), QStringLiteral("errorLabel"));
        QVERIFY2(label->text().contains(QStringLiteral("Could not open tiny-llama-Q4_K.gguf")), qPrintable(label->text()));
        QVERIFY2(label->text().contains(QStringLiteral("not an importance matrix")), qPrintable(label->text()));
        QVERIFY(label->wordWrap());
        QCOMPARE(window.tabs()->tabToolTip(0), fixturePath("tiny-llama-Q4_K.gguf"));
    }

    void fileMenuOpensPageAndStrip()
    {
        MainWindow window;
        window.show();
        QAction* action = window.findChild<QAction*>("openImportanceMatrixAction");
        QVERIFY(action);
        QVERIFY(action->text().contains("Importance Matrix"));
        window.openFile(fixturePath("tiny-moe-F16.gguf"));
        QTRY_VERIFY_WITH_TIMEOUT(window.currentModelPage() != nullptr, kHangGuardMs);
        ModelPage* modelPage = window.currentModelPage();
        openImportanceMatrix(&window, fixturePath("llama.cpp/tiny-moe.imatrix.gguf"));
        QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<ImatrixPage*>(window.tabs()->currentWidget()) != nullptr, kHangGuardMs);
        auto* page = qobject_cast<ImatrixPage*>(window.tabs()->currentWidget());
        QCOMPARE(page->imatrix().modelPath, fixturePath("tiny-moe-F16.gguf"));
        QCOMPARE(page->imatrix().validation.matchedEntries, std::size_t(16));
        ImportanceStrip* strip = modelPage->tensorPage()->heatmap()->findChild<ImportanceStrip*>("importanceStrip");
        QVERIFY(strip);
        QCOMPARE(strip->imatrix(), &page->imatrix());

        // Screenshots for the README (written beside the test binary, copied to docs/screenshots).
        window.resize(1280, 800);
        QVERIFY(testsupport::saveScreenshot(window, QStringLiteral("imatrix-page")));
        auto* pageTabs = page->findChild<QTabWidget*>(QStringLiteral("imatrixTabs"));
        QVERIFY(pageTabs);
        pageTabs->setCurrentIndex(2);  // Top columns
        page->tensorCombo()->setCurrentText(QStringLiteral("blk.1.ffn_down_exps.weight"));
        QVERIFY(testsupport::saveScreenshot(window, QStringLiteral("imatrix-columns")));
        pageTabs->setCurrentIndex(3);  // Statistics
        QVERIFY(testsupport::saveScreenshot(window, QStringLiteral("imatrix-statistics")));
        pageTabs->setCurrentIndex(1);
        window.tabs()->setCurrentWidget(modelPage);
        modelPage->showTensorsPage();
        modelPage->tensorPage()->setTensor(modelPage->sharedModel(), modelPage->model().findTensor("blk.1.ffn_down_exps.weight"));
        modelPage->tensorPage()->selectExpertIndex(5);
        QTRY_VERIFY_WITH_TIMEOUT(!modelPage->tensorPage()->heatmap()->isComputing() && !strip->values().empty(), kHangGuardMs);
        QCOMPARE(strip->values(), page->imatrix().matrix->find("blk.1.ffn_down_exps.weight")->quantWeights(5));
        QVERIFY(testsupport::saveScreenshot(window, QStringLiteral("imatrix-strip")));
    }
};

QTEST_MAIN(TestGuiImatrix)
#include "tst_gui_imatrix.moc"
