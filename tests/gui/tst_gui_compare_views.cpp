// The Compare page's views as one whole, driven offscreen: files of two models are refused (by
// the dialog and by the page, as the CLI refuses them); a file has one name and one colour on
// every tab, named by its file type; every chart exports with a title naming what it shows;
// the expert picker drives the histograms and the scatter too; empty views say why in words;
// the progress bar shows the heaviest job and the overall progress; the window's status bar
// forgets a message when another tab comes forward.

#include "core/compare/ModelComparison.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/compare/ColumnErrorTab.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/CompareExpertsTab.h"
#include "ui/compare/ComparePage.h"
#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/compare/ErrorHeatmapView.h"
#include "ui/compare/LayerErrorChart.h"
#include "ui/compare/TensorErrorView.h"
#include "ui/diff/LayerDiffChart.h"
#include "ui/experts/ExpertGridView.h"
#include "ui/experts/ExpertStatisticsView.h"
#include "ui/experts/ExpertTile.h"
#include "ui/experts/ExpertsPage.h"
#include "ui/imatrix/ColumnErrorView.h"
#include "ui/output/OutputErrorTab.h"
#include "ui/recipe/MixPlannerView.h"
#include "ui/session/BackgroundJob.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/shell/MainWindow.h"
#include "OpenFixture.h"
#include "Waits.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QSemaphore>
#include <QSettings>
#include <QFontMetrics>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace testsupport;

namespace {

int rowOf(const gguf::ModelComparison& comparison, std::string_view name)
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == name)
            return static_cast<int>(r);
    return -1;
}

bool waitFinished(ComparePage& page)
{
    QSignalSpy finished(&page, &ComparePage::comparisonFinished);
    return (page.results() || finished.wait(kHangGuardMs)) && page.results();
}

double graphTotal(const QCPGraph* graph)
{
    double total = 0.0;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        total += it->value;
    return total;
}

QString headerTitle(ComparePage& page, int column)
{
    return page.tableModel()->headerData(ComparisonTableModel::FixedColumnCount + column, Qt::Horizontal).toString();
}

}  // namespace

class TestGuiCompareViews : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().remove(QStringLiteral("compareDialog")); }

    // As the CLI ("no tensor could be compared"): a page over two unrelated files refuses,
    // instead of a table of "missing" rows.
    void pageRefusesFilesWithNothingToCompare()
    {
        auto llama = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        auto other = openFixtureModel(QStringLiteral("all-types.gguf"));
        QVERIFY(llama && other);
        ComparePage page({llama, other}, {});
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kHangGuardMs));
        QCOMPARE(finished.first().at(0).toBool(), false);
        const QString problems = page.findChild<QLabel*>(QStringLiteral("problemsLabel"))->text();
        QVERIFY2(problems.contains(QLatin1String("Cannot compare")) && problems.contains(QLatin1String("no tensor could be compared")),
                 qPrintable(problems));
        QVERIFY(!page.comparison());
    }

    // Two checked files of different models (neither the open one): the dialog refuses them,
    // by the rule it checks the open model with; the earlier files of another model are unchecked
    // beside the open one, and the note saying so goes when the person checks one anyway.
    void dialogRefusesFilesOfTwoModelsAndDropsTheStaleNote()
    {
        const QString llama = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        const QString q2 = fixturePath(QStringLiteral("tiny-llama-Q2_K.gguf"));
        {
            CompareDialog dialog;
            dialog.addFile(llama);
            dialog.addFile(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
            QSignalSpy accepted(&dialog, &QDialog::accepted);
            dialog.openAndAccept();
            QTRY_VERIFY_WITH_TIMEOUT(dialog.message().contains(QLatin1String("Cannot compare")), kHangGuardMs);
            QVERIFY2(dialog.message().contains(QLatin1String("not the model")), qPrintable(dialog.message()));
            QVERIFY(accepted.isEmpty());
            QVERIFY(dialog.models().empty());
        }
        {
            CompareDialog first;
            first.addFile(llama);
            first.addFile(q2);
            QSignalSpy accepted(&first, &QDialog::accepted);
            first.openAndAccept();
            QVERIFY(accepted.wait(kHangGuardMs));
        }
        CompareDialog dialog(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        QSignalSpy checked(&dialog, &CompareDialog::openFileChecked);
        QVERIFY(checked.wait(kHangGuardMs));
        QCOMPARE(checked.first().at(0).toBool(), false);
        QVERIFY(!dialog.openFileNote().isEmpty());
        auto* files = dialog.findChild<QListWidget*>(QStringLiteral("filesList"));
        QCOMPARE(files->item(0)->checkState(), Qt::Checked);
        QCOMPARE(files->item(1)->checkState(), Qt::Unchecked);
        files->item(1)->setCheckState(Qt::Checked);  // the person wants it after all: the note is stale
        QCOMPARE(dialog.openFileNote(), QString());
        QSettings().remove(QStringLiteral("compareDialog"));
    }

    // The Table, the per-layer chart, the histograms and the Output tab name a file the same
    // (its file type, Q4_K_M, and for two of one type also the file) in the same colour; a cell
    // whose tensor is stored in another type than its column's is marked.
    void oneNameAndColourPerFileOnEveryTab()
    {
        const QString base = QStringLiteral("llama.cpp/arch/qwen3moe/qwen3moe");
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("second-Q4_K_M.gguf"));
        QVERIFY(QFile::copy(fixturePath(base + QStringLiteral("-Q4_K_M.gguf")), copy));
        auto f32 = openFixtureModel(base + QStringLiteral("-F32.gguf"));
        auto q4 = openFixtureModel(base + QStringLiteral("-Q4_K_M.gguf"));
        auto q8 = openFixtureModel(base + QStringLiteral("-Q8_0.gguf"));
        auto second = openModelAt(copy);
        QVERIFY(f32 && q4 && q8 && second);
        ComparePage page({f32, q4, q8, second}, {gguf::findTypeByName("q4_K")->id});
        QVERIFY(waitFinished(page));
        const gguf::ModelComparison& comparison = *page.comparison();
        QCOMPARE(headerTitle(page, 0), QStringLiteral("Q4_K_M · qwen3moe-Q4_K_M"));
        QCOMPARE(headerTitle(page, 1), QStringLiteral("Q8_0"));
        QCOMPARE(headerTitle(page, 2), QStringLiteral("Q4_K_M · second-Q4_K_M"));
        QCOMPARE(headerTitle(page, 3), QStringLiteral("Q4_K (simulated)"));
        QVERIFY(comparisonColumnColour(comparison, 0) != comparisonColumnColour(comparison, 2));  // two files of one type

        // The per-layer chart and the Output tab: the same names, the same colours.
        auto* output = page.findChild<OutputErrorTab*>(QStringLiteral("outputErrorTab"));
        QVERIFY(output);
        QCOMPARE(output->candidateChooser()->count(), 4);
        int widest = 0;
        for (int c = 0; c < 4; ++c) {
            QCOMPARE(page.layerChart()->plot()->graph(c)->name(), headerTitle(page, c));
            QCOMPARE(output->candidateChooser()->itemText(c), headerTitle(page, c));
            QCOMPARE(output->candidateColour(c), page.layerChart()->plot()->graph(c)->pen().color());
            widest = std::max(widest, output->candidateChooser()->fontMetrics().horizontalAdvance(headerTitle(page, c)));
        }
        QVERIFY2(output->candidateChooser()->sizeHint().width() > widest,
                 qPrintable(QStringLiteral("%1 <= %2").arg(output->candidateChooser()->sizeHint().width()).arg(widest)));
        QStringList ids;
        for (int i = 0; i < 16; ++i)
            ids << QString::number((37 * i + 5) % 300);
        output->setTokens(ids.join(QLatin1Char(',')));
        QSignalSpy ran(output, &OutputErrorTab::runFinished);
        output->run();
        QVERIFY(ran.wait(kHangGuardMs));
        QVERIFY(ran.first().at(0).toBool());
        for (int c = 0; c < 4; ++c) {
            QCOMPARE(output->driftPlot()->graph(c)->name(), headerTitle(page, c));
            QCOMPARE(output->driftPlot()->graph(c)->pen().color(), page.layerChart()->plot()->graph(c)->pen().color());
        }
        // The per-model views say whose they are.
        output->candidateChooser()->setCurrentIndex(2);
        auto* histogramTitle = output->histogramPlot()->findChild<QCPTextElement*>(QStringLiteral("chartTitle"));
        QVERIFY(histogramTitle && histogramTitle->text().contains(headerTitle(page, 2)));
        QVERIFY(output->tokenText()->toHtml().contains(QStringLiteral("second-Q4_K_M")));
        QVERIFY(output->tokenTooltip(0).contains(headerTitle(page, 2)));

        // The histograms: every column in its colour.
        const int row = rowOf(comparison, "blk.0.attn_q.weight");
        QVERIFY(row >= 0);
        QSignalSpy histogram(page.tensorView(), &TensorErrorView::histogramReady);
        page.tensorView()->setTensorRow(static_cast<std::size_t>(row));
        QVERIFY(histogram.wait(kHangGuardMs));
        QCustomPlot* histogramPlot = page.tensorView()->histogramPlot();
        for (int g = 0; g < histogramPlot->graphCount(); ++g) {
            const int column = headerTitle(page, 0) == histogramPlot->graph(g)->name() ? 0
                             : headerTitle(page, 1) == histogramPlot->graph(g)->name() ? 1
                             : headerTitle(page, 2) == histogramPlot->graph(g)->name() ? 2
                                                                                      : 3;
            QCOMPARE(histogramPlot->graph(g)->name(), headerTitle(page, column));
            QCOMPARE(histogramPlot->graph(g)->pen().color(), comparisonColumnColour(comparison, static_cast<std::size_t>(column)));
        }

        // A tensor the Q4_K_M file stores in another quant type than most of its weights is marked;
        // one in the column's own type is not.
        const std::uint32_t columnType = comparison.rows()[static_cast<std::size_t>(row)].cells[0].typeId;
        int marked = -1, plain = -1;
        for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
            const gguf::ComparisonCell& cell = comparison.rows()[r].cells[0];
            if (!cell.ok())
                continue;
            const QModelIndex index = page.tableModel()->index(static_cast<int>(r), ComparisonTableModel::FixedColumnCount);
            const QVariant type = index.data(ComparisonTableModel::CellTypeRole);
            if (!type.isNull()) {
                QCOMPARE(type.toUInt(), cell.typeId);
                QVERIFY(index.data(Qt::ToolTipRole).toString().contains(QLatin1String("not the column's")));
                QVERIFY(!page.proxyModel()->mapFromSource(index).data(Qt::DecorationRole).isNull());
                marked = static_cast<int>(r);
            } else if (cell.typeId == columnType) {
                plain = static_cast<int>(r);
            }
        }
        QVERIFY2(marked >= 0, "a Q4_K_M file keeps some tensors in another type");
        QVERIFY(plain >= 0);
        QVERIFY(comparison.rows()[static_cast<std::size_t>(marked)].cells[0].typeId != comparison.rows()[static_cast<std::size_t>(marked)].reference->typeId);
    }

    // Every chart of the Compare page, the Output tab, the Experts page, the Diff and the Recipe
    // planner exports, titled with what it shows: model, tensor, expert, aggregate, columns and
    // reference; the drift names every model it draws.
    void everyChartExportsWithATitleOfWhatItShows()
    {
        auto f16 = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(f16 && q4);
        auto matrix = gguf::ImportanceMatrix::load(fixturePath(QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf")).toStdString());
        QVERIFY(matrix);
        ComparePage page({f16, q4}, {gguf::findTypeByName("q2_K")->id}, nullptr,
                         std::make_shared<gguf::ImportanceMatrix>(std::move(matrix).value()));
        QVERIFY(waitFinished(page));
        const QList<QCustomPlot*> plots = page.findChildren<QCustomPlot*>();
        QVERIFY(plots.size() >= 10);
        for (QCustomPlot* plot : plots)
            QVERIFY2(hasPlotExport(plot), qPrintable(plot->objectName()));

        const int row = rowOf(*page.comparison(), "blk.0.ffn_down_exps.weight");
        QVERIFY(row >= 0);
        QSignalSpy histogram(page.tensorView(), &TensorErrorView::histogramReady);
        page.tensorView()->setTensorRow(static_cast<std::size_t>(row));
        QVERIFY(histogram.wait(kHangGuardMs));
        page.tensorView()->setExpert(1);
        QVERIFY(histogram.wait(kHangGuardMs));
        const QString heatmap = plotExportTitle(page.tensorView()->heatmap()->plot());
        for (const QString& part : {QStringLiteral("blk.0.ffn_down_exps.weight"), QStringLiteral("expert 1"), QStringLiteral("mean error"),
                                    QStringLiteral("Q4_K_M"), QStringLiteral("tiny-moe-F16.gguf")})
            QVERIFY2(heatmap.contains(part), qPrintable(heatmap + QStringLiteral(" lacks ") + part));
        const QString histograms = plotExportTitle(page.tensorView()->histogramPlot());
        for (const QString& part : {QStringLiteral("blk.0.ffn_down_exps.weight"), QStringLiteral("expert 1"), QStringLiteral("Q4_K_M"),
                                    QStringLiteral("Q2_K (simulated)"), QStringLiteral("tiny-moe-F16.gguf")})
            QVERIFY2(histograms.contains(part), qPrintable(histograms + QStringLiteral(" lacks ") + part));
        const QString layers = plotExportTitle(page.layerChart()->plot());
        QVERIFY2(layers.contains(QLatin1String("per layer")) && layers.contains(QLatin1String("Q4_K_M")) && layers.contains(QLatin1String("Q2_K (simulated)")),
                 qPrintable(layers));
        page.expertsTab()->setTensorRow(static_cast<std::size_t>(row));
        QVERIFY(plotExportTitle(page.expertsTab()->plot()).contains(QLatin1String("per expert of blk.0.ffn_down_exps.weight")));

        // The files carry the title: the SVG's <title>.
        QTemporaryDir dir;
        for (QCustomPlot* plot : {page.tensorView()->heatmap()->plot(), page.tensorView()->histogramPlot(), page.layerChart()->plot()}) {
            const QString path = dir.filePath(plot->objectName() + QStringLiteral(".svg"));
            QCOMPARE(exportPlotAsShown(plot, path), QString());
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY(file.readAll().contains(plotExportTitle(plot).section(QLatin1Char(':'), 0, 0).toHtmlEscaped().toUtf8()));
        }

        // The drift export names both models it draws, not only the one the Show box picks.
        auto* output = page.findChild<OutputErrorTab*>(QStringLiteral("outputErrorTab"));
        output->setTokens(QStringLiteral("1,5,9,13,17,21,25,29"));
        QSignalSpy ran(output, &OutputErrorTab::runFinished);
        output->run();
        QVERIFY(ran.wait(kHangGuardMs));
        const QString drift = plotExportTitle(output->driftPlot());
        QVERIFY2(drift.contains(QLatin1String("Q4_K_M")) && drift.contains(QLatin1String("Q2_K (simulated)")) && drift.contains(QLatin1String("8 token ids")),
                 qPrintable(drift));

        // The Experts page: every chart (the tiles through their own menu), named after the tensor.
        ExpertsPage experts(f16);
        experts.resize(1200, 900);
        experts.show();
        QTRY_VERIFY_WITH_TIMEOUT(!experts.grid()->tiles().empty(), kHangGuardMs);
        for (QCustomPlot* plot : experts.findChildren<QCustomPlot*>())
            if (plot->objectName() != QLatin1String("expertColorScale"))  // the tiles' shared colour bar, not a chart
                QVERIFY2(hasPlotExport(plot), qPrintable(plot->objectName()));
        const QString tile = plotExportTitle(experts.grid()->tiles().front()->plot());
        QVERIFY2(tile.contains(QLatin1String("expert 0")) && tile.contains(QLatin1String("tiny-moe-F16.gguf")), qPrintable(tile));
        const QString statistics = plotExportTitle(experts.statisticsView()->rmsPlot());
        QVERIFY2(statistics.contains(QString::fromUtf8(experts.currentTensor()->name.data(), static_cast<qsizetype>(experts.currentTensor()->name.size()))),
                 qPrintable(statistics));

        // The Diff's per-layer chart and the Recipe planner's frontier.
        LayerDiffChart diffChart;
        QVERIFY(hasPlotExport(diffChart.plot()));
        MixPlannerView planner(f16);
        QVERIFY(hasPlotExport(planner.findChild<QCustomPlot*>(QStringLiteral("frontierPlot"))));
    }

    // 94 layers and "other" on the Diff's per-layer axis, zoomed to the last layers on a narrow
    // chart: the last layer number does not run into "other" ("93" overlapped it); the labels
    // left keep the two-digit gap the other axes keep.
    void diffLayerAxisKeepsOtherApart()
    {
        gguf::ModelDiff diff;
        for (std::uint32_t layer = 0; layer <= 94; ++layer) {
            gguf::LayerDifference entry;
            if (layer < 94)
                entry.layer = layer;
            entry.metrics.count = 1;
            entry.metrics.relativeRmse = 0.01 * (1 + layer % 7);
            diff.layers.push_back(entry);
        }
        LayerDiffChart chart;
        chart.resize(300, 300);
        chart.setDiff(&diff);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QCPAxis* axis = chart.plot()->xAxis;
        axis->setRange(87.5, 94.5);  // zoomed in with the wheel: a label for every layer
        chart.plot()->replot();
        chart.plot()->replot();  // the second layout has the axis rect the ticks were made for
        const QVector<double> ticks = axis->tickVector();
        const QVector<QString> labels = axis->tickVectorLabels();
        QVERIFY(ticks.size() > 2);
        QCOMPARE(labels.last(), QStringLiteral("other"));
        const QFontMetrics metrics(axis->tickLabelFont());
        const double gap = metrics.horizontalAdvance(QStringLiteral("00"));
        const QString pixelsPerLayer = QString::number(axis->coordToPixel(1.0) - axis->coordToPixel(0.0));
        for (qsizetype i = 1; i < ticks.size(); ++i) {
            const double apart = axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]);
            double needed = (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) / 2.0;
            if (i == ticks.size() - 1)
                needed += gap;
            QVERIFY2(apart >= needed, qPrintable(QStringLiteral("\"%1\" and \"%2\": %3 px apart, %4 needed (%5 px per layer)")
                                                     .arg(labels[i - 1], labels[i]).arg(apart).arg(needed).arg(pixelsPerLayer)));
        }
    }

    // The expert picker of the Tensor tab drives the histograms and the scatter, not only the
    // heatmap: one expert counts that expert's weights; "all" counts every weight and labels
    // each expert's rows in the heatmap.
    void expertPickerDrivesEveryPlot()
    {
        auto f16 = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(f16 && q4);
        ComparePage page({f16, q4}, {});
        QVERIFY(waitFinished(page));
        const int row = rowOf(*page.comparison(), "blk.0.ffn_down_exps.weight");
        const gguf::TensorInfo& tensor = *f16->findTensor("blk.0.ffn_down_exps.weight");
        const double perExpert = static_cast<double>(tensor.ne[0]) * static_cast<double>(tensor.ne[1]);
        TensorErrorView* view = page.tensorView();
        QSignalSpy histogram(view, &TensorErrorView::histogramReady);
        QSignalSpy scatter(view, &TensorErrorView::scatterReady);
        QSignalSpy heatmap(view->heatmap(), &ErrorHeatmapView::heatmapReady);
        view->setTensorRow(static_cast<std::size_t>(row));  // opens on expert 0
        QVERIFY(histogram.wait(kHangGuardMs));
        QVERIFY(scatter.count() > 0 || scatter.wait(kHangGuardMs));
        QCOMPARE(graphTotal(view->histogramPlot()->graph(0)), perExpert);
        const int oneExpertBlocks = view->scatterPlot()->graph(0)->dataCount();

        histogram.clear();
        scatter.clear();
        heatmap.clear();
        view->setExpert(-1);
        QVERIFY(histogram.wait(kHangGuardMs));
        QVERIFY(scatter.count() > 0 || scatter.wait(kHangGuardMs));
        QVERIFY(heatmap.count() > 0 || heatmap.wait(kHangGuardMs));
        QCOMPARE(graphTotal(view->histogramPlot()->graph(0)), perExpert * static_cast<double>(tensor.ne[2]));
        QCOMPARE(view->scatterPlot()->graph(0)->dataCount(), oneExpertBlocks * static_cast<int>(tensor.ne[2]));
        QStringList labels;
        for (std::int64_t e = 0; e < tensor.ne[2]; ++e)
            labels << QStringLiteral("expert %1").arg(e);
        QCOMPARE(view->heatmap()->rowBoundaryLabels(), labels);
    }

    // Views with nothing to show say why in words over the plot, never as empty axes: the
    // Columns tab without an importance matrix, the Experts tab, the Output tab before Run, a
    // tensor without error (the f32 norms), a tensor kind without error.
    void emptyViewsSaySoInWords()
    {
        auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(f32 && q4);
        ComparePage page({f32, q4}, {});
        page.resize(1000, 700);
        page.show();
        QVERIFY(waitFinished(page));
        auto* output = page.findChild<OutputErrorTab*>(QStringLiteral("outputErrorTab"));
        QVERIFY(output->placeholderText(output->driftPlot()).contains(QLatin1String("press Run")));
        QVERIFY(output->placeholderText(output->histogramPlot()).contains(QLatin1String("press Run")));
        QVERIFY(!page.expertsTab()->placeholderText().isEmpty());

        const int row = rowOf(*page.comparison(), "blk.0.attn_q.weight");
        page.tableView()->setCurrentIndex(page.proxyModel()->mapFromSource(page.tableModel()->index(row, 0)));
        QVERIFY2(page.expertsTab()->placeholderText().contains(QLatin1String("no experts")), qPrintable(page.expertsTab()->placeholderText()));
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        QSignalSpy profile(page.columnErrorView(), &ColumnErrorView::profileReady);
        tabs->setCurrentWidget(page.columnErrorTab());
        QVERIFY(profile.wait(kHangGuardMs));
        QVERIFY2(page.columnErrorTab()->importanceCoverText().contains(QLatin1String("No importance matrix")),
                 qPrintable(page.columnErrorTab()->importanceCoverText()));
        QCOMPARE(page.columnErrorTab()->errorCoverText(), QString());

        // The f32 norm is stored as it was: no error, said in words.
        QSignalSpy histogram(page.tensorView(), &TensorErrorView::histogramReady);
        page.tensorView()->setTensorRow(static_cast<std::size_t>(rowOf(*page.comparison(), "blk.0.attn_norm.weight")));
        QTRY_VERIFY_WITH_TIMEOUT(page.tensorView()->histogramPlaceholderText().startsWith(QLatin1String("No error")), kHangGuardMs);
        QVERIFY(histogram.isEmpty());
        page.layerChart()->setKind(QStringLiteral("attn_norm"));
        QVERIFY2(page.layerChart()->placeholderText().startsWith(QLatin1String("No error in the attn_norm tensors")),
                 qPrintable(page.layerChart()->placeholderText()));
        page.layerChart()->setKind(QStringLiteral("attn_q"));
        QCOMPARE(page.layerChart()->placeholderText(), QString());
    }

    // After a failed run on new tokens, the figures of the old run stay, greyed, saying which
    // tokens they are of; the "positions scored" line stays with them.
    void outputFiguresSayWhichTokensTheyAreOf()
    {
        auto f16 = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(f16 && q4);
        ComparePage page({f16, q4}, {});
        auto* output = page.findChild<OutputErrorTab*>(QStringLiteral("outputErrorTab"));
        QVERIFY(output->isTextInput());  // real text by default, through the model's tokenizer
        QVERIFY(output->inputText().contains(QLatin1String("lighthouse")));
        QSignalSpy ran(output, &OutputErrorTab::runFinished);
        output->run();
        QVERIFY(ran.wait(kHangGuardMs));
        QVERIFY(ran.takeFirst().at(0).toBool());
        QVERIFY2(output->figuresInput().contains(QStringLiteral("positions scored on the text “The old lighthouse")), qPrintable(output->figuresInput()));
        QVERIFY(!output->figuresAreStale());
        // The summary carries the standard errors the CLI prints.
        bool withError = false;
        for (QLabel* label : output->findChildren<QLabel*>())
            withError = withError || (label->text().contains(QLatin1String("mean KLD")) && label->text().contains(QStringLiteral("±")));
        QVERIFY(withError);

        output->setTokens(QStringLiteral("3,5,7,9"));
        QVERIFY(output->figuresAreStale());  // edited: the figures are not of these ids
        output->setTokens(QStringLiteral("3,5,700000,9"));  // beyond the vocabulary: the run fails
        output->run();
        QVERIFY(ran.wait(kHangGuardMs));
        QCOMPARE(ran.takeFirst().at(0).toBool(), false);
        QVERIFY(output->statusText().startsWith(QLatin1String("Failed")));
        QVERIFY(output->figuresAreStale());
        QVERIFY2(output->figuresInput().contains(QLatin1String("previous input")) && output->figuresInput().contains(QLatin1String("positions scored"))
                     && output->figuresInput().contains(QLatin1String("lighthouse")),
                 qPrintable(output->figuresInput()));
        QVERIFY(output->views()->graphicsEffect() && output->views()->graphicsEffect()->isEnabled());  // greyed
        output->setText(output->inputKind()->itemData(0).toString());
        QVERIFY(!output->figuresAreStale());  // the text they are of, again
        QVERIFY(!output->views()->graphicsEffect()->isEnabled());
        // The progress bar keeps its place while hidden.
        QVERIFY(output->progressBar()->sizePolicy().retainSizeWhenHidden());
    }

    // The bar names the heaviest running job and shows the progress of all of them, the ended
    // ones counted as done, not the newest job's.
    void progressBarShowsTheHeaviestJobAndOverallProgress()
    {
        JobProgressBar bar;
        auto gate = std::make_shared<QSemaphore>();
        const auto waiting = [gate](int, const std::atomic<bool>&) -> gguf::Status {
            gate->acquire();
            return gguf::Ok{};
        };
        auto* heavy = new BackgroundJob(16, waiting, &bar);
        bar.track(heavy, QStringLiteral("Error heatmap"));
        auto* light = new BackgroundJob(1, waiting, &bar);
        bar.track(light, QStringLiteral("Block 0 of row 0"));
        QCOMPARE(bar.text(), QStringLiteral("Error heatmap"));
        QCOMPARE(bar.maximum(), 17);
        QVERIFY2(bar.barText().endsWith(QLatin1String("0 of 2 jobs done")), qPrintable(bar.barText()));
        gate->release(4);
        QTRY_VERIFY_WITH_TIMEOUT(bar.value() == 4, kHangGuardMs);
        QCOMPARE(bar.text(), QStringLiteral("Error heatmap"));
        gate->release(13);
        QVERIFY(!bar.isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(!heavy->isRunning() && !light->isRunning(), kHangGuardMs);
        QTRY_VERIFY_WITH_TIMEOUT(bar.isHidden(), kHangGuardMs);
    }

    // A message in the status bar is about the tab that gave it.
    void statusMessagesBelongToTheirTab()
    {
        MainWindow window;
        QTabWidget* tabs = window.tabs();
        tabs->addTab(new QWidget, QStringLiteral("one"));
        tabs->addTab(new QWidget, QStringLiteral("two"));
        tabs->setCurrentIndex(0);
        window.statusBar()->showMessage(QStringLiteral("Exported the comparison to /tmp/x.csv"));
        tabs->setCurrentIndex(1);
        QCOMPARE(window.statusBar()->currentMessage(), QString());
    }
};

QTEST_MAIN(TestGuiCompareViews)
#include "tst_gui_compare_views.moc"
