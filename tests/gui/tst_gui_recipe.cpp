// The recipe page offscreen: the grid shows the stored types (or llama-quantize's for a preset,
// rules applied, with the size preview), coloured by type; the audit lists the tensors that
// differ from llama-quantize's choice; the planner measures in the background, stays within the
// budget, beats or ties the best preset that fits, draws the frontier with the presets and
// saves a rules file; a hopeless budget is reported, not planned.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/base/HumanFormat.h"
#include "core/recipe/MixSummary.h"
#include "core/recipe/ProvenanceCheck.h"
#include "core/recipe/RecipeAudit.h"
#include "core/recipe/RecipeGrid.h"
#include "ui/recipe/ProvenanceView.h"
#include "ui/recipe/FrontierPlot.h"
#include "ui/recipe/MixPlannerView.h"
#include "ui/recipe/RecipeAuditView.h"
#include "ui/recipe/RecipeGridView.h"
#include "ui/recipe/RecipePage.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/shell/MainWindow.h"
#include "ui/session/MixFallbackModel.h"
#include "ui/session/ProvenanceDifferenceModel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QMenuBar>
#include <QTabWidget>

#include <QCheckBox>
#include <QClipboard>
#include <QHeaderView>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <qcustomplot.h>

using testsupport::fixturePath;

namespace {

int columnOf(const QTableWidget& table, const QString& header)
{
    for (int c = 0; c < table.columnCount(); ++c)
        if (table.horizontalHeaderItem(c)->text() == header)
            return c;
    return -1;
}

int rowOf(const QTableWidget& table, const QString& header)
{
    for (int r = 0; r < table.rowCount(); ++r)
        if (table.verticalHeaderItem(r)->text() == header)
            return r;
    return -1;
}

QString cell(const QTableWidget& table, const QString& row, const QString& column)
{
    const QTableWidgetItem* item = table.item(rowOf(table, row), columnOf(table, column));
    return item ? item->text() : QString();
}

}  // namespace

class TestGuiRecipe : public QObject {
    Q_OBJECT

private slots:
    void gridShowsStoredAndPresetTypes()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        page.resize(1000, 700);
        page.show();
        const RecipeGridView& grid = *page.gridView();
        QCOMPARE(grid.rowCount(), 3 + 2);  // model, blk.0, blk.1, then bytes and bpw
        QCOMPARE(cell(grid, "blk.1", "attn_v"), QStringLiteral("q4_K"));
        QCOMPARE(cell(grid, "blk.0", "attn_norm"), QStringLiteral("f32"));
        QCOMPARE(cell(grid, "model", "output"), QStringLiteral("q4_K"));
        QCOMPARE(cell(grid, "bpw", "bpw"), QStringLiteral("4.518"));
        const QTableWidgetItem* q4 = grid.item(rowOf(grid, "blk.1"), columnOf(grid, "attn_v"));
        QCOMPARE(q4->background().color(), quantTypeColour(gguf::typeIdValue(gguf::GgmlTypeId::Q4_K)));
        QVERIFY(q4->toolTip().contains("blk.1.attn_v.weight"));
        QVERIFY(!page.rulesEdit()->isEnabled());

        page.showPreset("Q4_K_M");
        QCOMPARE(cell(grid, "blk.1", "attn_v"), QStringLiteral("q6_K"));
        QCOMPARE(cell(grid, "blk.1", "ffn_down"), QStringLiteral("q6_K"));
        QCOMPARE(cell(grid, "model", "output"), QStringLiteral("q6_K"));
        QCOMPARE(grid.item(rowOf(grid, "blk.1"), columnOf(grid, "attn_v"))->background().color(),
                 quantTypeColour(gguf::typeIdValue(gguf::GgmlTypeId::Q6_K)));
        QVERIFY(page.previewLabel()->text().contains("4.930 bits per weight"));
        QVERIFY(page.rulesEdit()->isEnabled());

        // Rules typed in apply at once, with the new size in the preview.
        page.rulesEdit()->setPlainText("attn_q=q8_0");
        QCOMPARE(cell(grid, "blk.0", "attn_q"), QStringLiteral("q8_0"));
        QCOMPARE(cell(grid, "blk.1", "attn_q"), QStringLiteral("q8_0"));
        QVERIFY(page.previewLabel()->text().contains("2 tensor(s) set by rules"));
        QVERIFY(!page.previewLabel()->text().contains("4.930 bits per weight"));
        page.rulesEdit()->setPlainText("attn_q=nonsense");
        QVERIFY(page.previewLabel()->text().startsWith("Rules:"));

        // Q2_K_S without an imatrix: shown, with llama-quantize's refusal.
        page.rulesEdit()->clear();
        page.imatrixBox()->setChecked(false);
        page.showPreset("Q2_K_S");
        QVERIFY(page.previewLabel()->text().contains("would refuse"));
        page.imatrixBox()->setChecked(true);
        QVERIFY(!page.previewLabel()->text().contains("would refuse"));
    }

    void auditListsDifferences()
    {
        auto model = testsupport::openModelAt(fixturePath("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        QTableWidget* differences = page.auditView()->differencesTable();
        QCOMPARE(differences->rowCount(), 3);
        QStringList tensors;
        for (int r = 0; r < 3; ++r) {
            tensors << differences->item(r, 0)->text();
            QCOMPARE(differences->item(r, 1)->text(), QStringLiteral("q4_K"));
            QCOMPARE(differences->item(r, 2)->text(), QStringLiteral("q6_K"));
        }
        QCOMPARE(tensors, (QStringList{"output.weight", "blk.1.attn_v.weight", "blk.1.ffn_down.weight"}));
        const auto* summary = page.auditView()->findChild<QLabel*>("auditSummary");
        QVERIFY(summary->text().contains("MOSTLY_Q4_K_M"));
        QVERIFY(summary->text().contains("3 of 21 tensors differ"));

        model = testsupport::openModelAt(fixturePath("llama.cpp/tiny-llama-imat-Q4_K_M.gguf"));
        QVERIFY(model);
        RecipePage real(model);
        QCOMPARE(real.auditView()->differencesTable()->rowCount(), 0);
        const auto* keys = real.auditView()->findChild<QTableWidget*>("auditImatrixKeys");
        QCOMPARE(keys->rowCount(), 4);
        QCOMPARE(keys->item(0, 0)->text(), QStringLiteral("quantize.imatrix.file"));
        QVERIFY(real.imatrixBox()->isChecked());  // the keys say an imatrix was used
    }

    void plannerPlansWithinTheBudget()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        page.show();
        MixPlannerView& planner = *page.plannerView();
        QSignalSpy finished(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("1.2MB");
        planner.plan();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(planner.result());
        QVERIFY(planner.result()->mix.fileBytes <= 1200000);
        QVERIFY(planner.result()->bestPresetWithin);
        QVERIFY(planner.result()->mix.error <= planner.result()->bestPresetError);
        // Frontier, presets and the plan on the plot; every evaluated preset is a point.
        QCustomPlot* plot = planner.plot();
        QCOMPARE(plot->graphCount(), 3);
        QVERIFY(plot->graph(0)->dataCount() > 16);
        int evaluated = 0;
        for (const auto& point : planner.presets())
            evaluated += point.evaluated && point.mix.error > 0;
        QCOMPARE(plot->graph(1)->dataCount(), evaluated);
        QCOMPARE(plot->graph(2)->dataCount(), 1);
        const auto* rulesText = planner.findChild<QPlainTextEdit*>("planRules");
        QCOMPARE(rulesText->toPlainText(), planner.rulesFileText());
        QVERIFY(!planner.rulesFileText().isEmpty());
        QTemporaryDir dir;
        QString error;
        QVERIFY2(planner.saveRules(dir.filePath("rules.txt"), &error), qPrintable(error));
        QCOMPARE(testsupport::readWholeFile(dir.filePath("rules.txt")), planner.rulesFileText().toUtf8());

        // A second budget reuses the measurement (no background job: the signal comes at once).
        planner.setBudgetText("5bpw");
        finished.clear();
        planner.plan();
        QCOMPARE(finished.count(), 1);
        QVERIFY(planner.result()->mix.bitsPerWeight <= 5.0);

        // A budget below the smallest mix is refused with a message.
        planner.setBudgetText("100kB");
        finished.clear();
        planner.plan();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY(!planner.result());
        QVERIFY(planner.findChild<QLabel*>("planSummary")->text().contains("above the budget"));
        planner.setBudgetText("lots");
        planner.plan();
        QVERIFY(planner.findChild<QLabel*>("planSummary")->text().contains("not a size"));
    }

    void convertsLikeLlamaQuantize()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        QVERIFY(!page.convertButton()->isEnabled());  // stored types: nothing to convert to
        page.showPreset("Q4_K_M");
        QVERIFY(page.convertButton()->isEnabled());
        QTemporaryDir dir;
        QSignalSpy finished(&page, &RecipePage::conversionFinished);
        page.startConversion(dir.filePath("out.gguf"));
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(testsupport::readWholeFile(dir.filePath("out.gguf"))
                == testsupport::readWholeFile(fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf")));
        // A refused preset fails with llama-quantize's reason and writes nothing.
        page.showPreset("Q2_K_S");
        page.imatrixBox()->setChecked(false);
        finished.clear();
        page.startConversion(dir.filePath("refused.gguf"));
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY(finished.first().at(1).toString().contains("importance matrix"));
        QVERIFY(!QFile::exists(dir.filePath("refused.gguf")));
    }

    // The imatrix picker: the file is read in the background and checked against the model; the
    // planner then measures with its weights (IQ presets measured), and Convert quantizes with
    // them: the tensor data equals llama-quantize --imatrix's Q4_K_M output byte for byte.
    void imatrixFileFeedsPlannerAndConvert()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        QVERIFY(!page.importance());
        QSignalSpy loaded(&page, &RecipePage::imatrixLoaded);
        // A file that is no importance matrix is refused with the reader's reason; nothing changes.
        page.loadImatrix(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
        QVERIFY(!loaded.first().at(0).toBool());
        QVERIFY2(!loaded.first().at(1).toString().isEmpty(), "no reason given");
        QCOMPARE(page.imatrixLabel()->text(), QStringLiteral("no imatrix file"));
        QVERIFY(!page.importance());
        QVERIFY(!page.plannerView()->weighted());
        loaded.clear();
        // The path as the user typed it, relative to the working folder, as llama-quantize takes
        // it from its command line: there `public` named the fixtures' llama.cpp folder.
        QTemporaryDir work;
        QVERIFY(QFile::link(fixturePath("llama.cpp"), work.filePath("public")));
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(work.path()));
        const auto restore = qScopeGuard([&before] { QDir::setCurrent(before); });
        page.loadImatrix(QStringLiteral("public/tiny-llama.imatrix.gguf"));
        QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QVERIFY(page.importance());
        QVERIFY(page.imatrixBox()->isChecked());
        QCOMPARE(page.imatrixLabel()->text(), QStringLiteral("tiny-llama.imatrix.gguf"));
        QVERIFY(page.plannerView()->weighted());

        MixPlannerView& planner = *page.plannerView();
        QSignalSpy planned(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("0.8MB");
        planner.plan();
        QVERIFY(planned.count() == 1 || planned.wait(testsupport::kHangGuardMs));
        QVERIFY2(planned.first().at(0).toBool(), qPrintable(planned.first().at(1).toString()));
        QVERIFY(planner.result()->mix.fileBytes <= 800000);
        QVERIFY(planner.result()->mix.error <= planner.result()->bestPresetError);
        bool iq2Measured = false;
        for (const auto& point : planner.presets())
            iq2Measured |= point.preset->name == "IQ2_XXS" && point.evaluated;
        QVERIFY(iq2Measured);
        // Every preset's size is the size of llama-quantize's file with this matrix (the keys it
        // adds, the path as typed, are in the header).
        int sized = 0;
        for (const auto& point : planner.presets()) {
            const QFileInfo real(fixturePath("llama.cpp/tiny-llama-imat-" + QString::fromUtf8(point.preset->name.data(), int(point.preset->name.size())) + ".gguf"));
            if (real.exists() && point.evaluated) {
                QCOMPARE(point.mix.fileBytes, std::uint64_t(real.size()));
                ++sized;
            }
        }
        QVERIFY(sized >= 20);

        page.showPreset("Q4_K_M");
        QTemporaryDir dir;
        QSignalSpy converted(&page, &RecipePage::conversionFinished);
        page.startConversion(dir.filePath("imat.gguf"));
        QVERIFY(converted.count() == 1 || converted.wait(testsupport::kHangGuardMs));
        QVERIFY2(converted.first().at(0).toBool(), qPrintable(converted.first().at(1).toString()));
        const auto ours = testsupport::openModelAt(dir.filePath("imat.gguf"));
        const auto real = testsupport::openModelAt(fixturePath("llama.cpp/tiny-llama-imat-Q4_K_M.gguf"));
        QVERIFY(ours && real);
        QCOMPARE(ours->tensors().size(), real->tensors().size());
        for (std::size_t t = 0; t < real->tensors().size(); ++t) {
            const auto& a = ours->tensors()[t];
            const auto& b = real->tensors()[t];
            QCOMPARE(std::string(a.name), std::string(b.name));
            QCOMPARE(a.typeId, b.typeId);
            QCOMPARE(a.nbytes, b.nbytes);
            QVERIFY2(std::memcmp(a.data, b.data, b.nbytes) == 0, std::string(b.name).c_str());
        }
        QCOMPARE(ours->metadataString("quantize.imatrix.file"), std::string("public/tiny-llama.imatrix.gguf"));
        QVERIFY2(testsupport::readWholeFile(dir.filePath("imat.gguf")) == testsupport::readWholeFile(fixturePath("llama.cpp/tiny-llama-imat-Q4_K_M.gguf")),
                 "not byte-identical to llama-quantize's output");

        // The plan, converted, is the size the planner said.
        converted.clear();
        QVERIFY(page.convertPlan(dir.filePath("plan.gguf")));
        QVERIFY(converted.count() == 1 || converted.wait(testsupport::kHangGuardMs));
        QVERIFY2(converted.first().at(0).toBool(), qPrintable(converted.first().at(1).toString()));
        QCOMPARE(std::uint64_t(QFileInfo(dir.filePath("plan.gguf")).size()), planner.result()->mix.fileBytes);
    }

    // The Provenance section answers what `recipe FILE --source S [--imatrix I]` answers, in the
    // core's words: llama-quantize's Q4_K_M with the imatrix is identical to what that source and
    // matrix give; without the matrix the first differing tensor is named, with the hint that the
    // file records one. Above it the mix in words, nominal and effective bpw, the fallbacks.
    // The Provenance tab's two tables as item models: the fallbacks a row each, the difference one
    // row whose missing side reads "—".
    void provenanceTablesAreItemModels()
    {
        MixFallbackModel fallbacks;
        QAbstractItemModelTester fallbackTester(&fallbacks, QAbstractItemModelTester::FailureReportingMode::QtTest);
        gguf::MixFallback first;
        first.tensor = "blk.0.ffn_down.weight";
        first.rowLength = 1376;
        first.chosenType = gguf::findTypeByName("q4_K")->id;
        first.fallbackType = gguf::findTypeByName("q5_0")->id;
        first.storedType = first.fallbackType;
        fallbacks.setFallbacks({first, first});
        QCOMPARE(fallbacks.rowCount(), 2);
        QCOMPARE(fallbacks.index(1, MixFallbackModel::Tensor).data().toString(), QStringLiteral("blk.0.ffn_down.weight"));
        QCOMPARE(fallbacks.index(0, MixFallbackModel::RowLength).data().toString(), QStringLiteral("1376"));
        QCOMPARE(fallbacks.index(0, MixFallbackModel::FellBackTo).data().toString(), QStringLiteral("q5_0"));
        fallbacks.setFallbacks({});
        QCOMPARE(fallbacks.rowCount(), 0);

        ProvenanceDifferenceModel difference;
        QAbstractItemModelTester differenceTester(&difference, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(difference.rowCount(), 0);
        gguf::ProvenanceDifference missing;
        missing.kind = gguf::ProvenanceDifferenceKind::Missing;
        missing.tensor = "output.weight";
        missing.expectedType = gguf::findTypeByName("q6_K")->id;
        difference.setDifference(missing);
        QCOMPARE(difference.rowCount(), 1);
        QCOMPARE(difference.index(0, ProvenanceDifferenceModel::FileType).data().toString(), QStringLiteral("—"));
        QCOMPARE(difference.index(0, ProvenanceDifferenceModel::ExpectedType).data().toString(), QStringLiteral("q6_K"));
        QCOMPARE(difference.index(0, ProvenanceDifferenceModel::FirstByte).data().toString(), QStringLiteral("—"));
        difference.setDifference(std::nullopt);
        QCOMPARE(difference.rowCount(), 0);
    }

    void provenanceAnswersAsTheCli()
    {
        const auto model = testsupport::openModelAt(fixturePath("llama.cpp/tiny-llama-imat-Q4_K_M.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        ProvenanceView& view = *page.provenanceView();
        // Both tables are session models, checked by Qt's tester through every change below.
        QAbstractItemModelTester fallbackTester(view.fallbackTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester differenceTester(view.differenceTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const gguf::MixSummary mix = gguf::summarizeMix(*model, gguf::auditRecipe(*model));
        const QString mixText = view.mixLabel()->text();
        QVERIFY2(mixText.contains(QString::fromStdString(mix.label)), qPrintable(mixText));
        QVERIFY2(mixText.contains(QStringLiteral("nominal %1 (q4_K)").arg(QString::fromStdString(gguf::formatFixed(mix.nominalBitsPerWeight, 3)))), qPrintable(mixText));
        QVERIFY2(mixText.contains(QStringLiteral("effective %1").arg(QString::fromStdString(gguf::formatFixed(mix.effectiveBitsPerWeight, 3)))), qPrintable(mixText));
        QVERIFY2(mixText.contains(QStringLiteral("Fallbacks: none")), qPrintable(mixText));

        QSignalSpy loaded(&page, &RecipePage::imatrixLoaded);
        page.loadImatrix(fixturePath("llama.cpp/tiny-llama.imatrix.gguf"));
        QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
        QVERIFY(loaded.first().at(0).toBool());
        QSignalSpy checked(&view, &ProvenanceView::checkFinished);
        view.check(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(checked.count() == 1 || checked.wait(testsupport::kHangGuardMs));
        QVERIFY2(checked.first().at(0).toBool(), qPrintable(checked.first().at(1).toString()));
        QVERIFY(view.result() && view.result()->identical() && view.result()->withImatrix);
        QVERIFY2(view.verdictLabel()->text().contains(QString::fromStdString(gguf::provenanceVerdict(*view.result()))), qPrintable(view.verdictLabel()->text()));
        QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("identical: every one of the 21 tensors")));
        QVERIFY(!view.differenceTable()->isVisibleTo(&view));

        // Without the matrix: the first tensor llama-quantize quantizes with it differs.
        page.imatrixBox()->setChecked(false);
        checked.clear();
        view.check(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(checked.count() == 1 || checked.wait(testsupport::kHangGuardMs));
        QVERIFY2(checked.first().at(0).toBool(), qPrintable(checked.first().at(1).toString()));
        QVERIFY(view.result() && !view.result()->identical() && !view.result()->withImatrix);
        const gguf::ProvenanceDifference& difference = *view.result()->firstDifference;
        QCOMPARE(difference.kind, gguf::ProvenanceDifferenceKind::Data);
        QVERIFY(view.differenceTable()->isVisibleTo(&view));
        QCOMPARE(view.differenceTable()->model()->index(0, 0).data().toString(), QString::fromStdString(difference.tensor));
        QCOMPARE(view.differenceTable()->model()->index(0, 1).data().toString(), QStringLiteral("data"));
        QVERIFY(difference.tensor.rfind("blk.", 0) == 0);  // token_embd and output have no imatrix entry: identical
        const QString verdict = view.verdictLabel()->text();
        QVERIFY2(verdict.contains(QStringLiteral("not identical: ")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("records an importance matrix")), qPrintable(verdict));
    }

    void openedFromTheMainWindow()
    {
        MainWindow window;
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, testsupport::kHangGuardMs);
        QAction* action = nullptr;
        for (QAction* candidate : window.menuBar()->findChildren<QAction*>())
            if (candidate->text() == QStringLiteral("Recipe and Mix &Planner"))
                action = candidate;
        QVERIFY(action);
        action->trigger();
        QCOMPARE(window.tabs()->count(), 2);
        auto* page = qobject_cast<RecipePage*>(window.tabs()->currentWidget());
        QVERIFY(page);
        QCOMPARE(window.tabs()->tabText(1), QStringLiteral("Recipe: tiny-llama-Q4_K.gguf"));
        QCOMPARE(page->auditView()->differencesTable()->rowCount(), 3);
    }

    void plannerCancels()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-moe-F16.gguf"));
        QVERIFY(model);
        MixPlannerView planner(model);
        QSignalSpy finished(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("3MB");
        planner.plan();
        planner.cancel();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        // Cancelled before the measurement ended, or it had already ended: either way one answer.
        if (!finished.first().at(0).toBool())
            QVERIFY(finished.first().at(1).toString().contains("cancelled"));
        QCOMPARE(finished.count(), 1);
    }

    // Before a plan, and after one fails or is superseded, nothing offers an old plan: Copy,
    // Save and Convert are off and the plot says why. Copy gives the whole llama-quantize
    // command, base preset included; Convert writes the plan at the size it predicted.
    void planActionsFollowThePlan()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        page.show();
        MixPlannerView& planner = *page.plannerView();
        for (QPushButton* button : {planner.copyButton(), planner.saveButton(), planner.convertButton()})
            QVERIFY(!button->isEnabled());
        QCOMPARE(planner.plot()->graphCount(), 0);
        QVERIFY(!planner.frontierPlot()->placeholderText().isEmpty());

        QSignalSpy finished(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("1.2MB");
        planner.plan();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        for (QPushButton* button : {planner.copyButton(), planner.saveButton(), planner.convertButton()})
            QVERIFY(button->isEnabled());
        QVERIFY(planner.frontierPlot()->placeholderText().isEmpty());
        const QString base = planner.basePresetName();
        QVERIFY(!base.isEmpty());
        const QString command = planner.commandText();
        QVERIFY2(command.startsWith("llama-quantize --tensor-type ") && command.endsWith(" " + base) && command.contains(fixturePath("tiny-llama-F32.gguf")),
                 qPrintable(command));
        planner.copyButton()->click();
        QCOMPARE(QApplication::clipboard()->text(), command);

        // One click converts: the page shows the plan as its recipe and writes it.
        QTemporaryDir dir;
        QSignalSpy converted(&page, &RecipePage::conversionFinished);
        QVERIFY(page.convertPlan(dir.filePath("plan.gguf")));
        QCOMPARE(page.presetBox()->currentData().toString(), base);
        QCOMPARE(page.rulesEdit()->toPlainText(), planner.rulesFileText());
        QVERIFY(converted.count() == 1 || converted.wait(testsupport::kHangGuardMs));
        QVERIFY2(converted.first().at(0).toBool(), qPrintable(converted.first().at(1).toString()));
        QCOMPARE(quint64(QFileInfo(dir.filePath("plan.gguf")).size()), quint64(planner.result()->mix.fileBytes));

        // A failed plan leaves nothing of the old one.
        planner.setBudgetText("100kB");
        finished.clear();
        planner.plan();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!finished.first().at(0).toBool());
        for (QPushButton* button : {planner.copyButton(), planner.saveButton(), planner.convertButton()})
            QVERIFY(!button->isEnabled());
        QCOMPARE(planner.plot()->graphCount(), 0);
        QVERIFY(planner.frontierPlot()->placeholderText().startsWith("No plan"));
        QVERIFY(planner.commandText().isEmpty());
        QVERIFY(!page.convertPlan(dir.filePath("none.gguf")));

        // A new measurement (another sample size) makes the shown plan stale at once, and a
        // cancel leaves it so.
        planner.setBudgetText("1.2MB");
        finished.clear();
        planner.plan();
        QCOMPARE(finished.count(), 1);
        QVERIFY(planner.copyButton()->isEnabled());
        planner.findChild<QSpinBox*>("sampleRows")->setValue(32);
        finished.clear();
        planner.plan();
        QVERIFY(!planner.copyButton()->isEnabled());
        QCOMPARE(planner.plot()->graphCount(), 0);
        planner.cancel();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QCOMPARE(planner.copyButton()->isEnabled(), finished.first().at(0).toBool());
        QCOMPARE(planner.plot()->graphCount() > 0, finished.first().at(0).toBool());
    }

    // The plot: preset labels overlap neither each other nor a point, every marker is whole
    // inside the axes, the budget is a line at its size, each point has a tooltip.
    void frontierPlotIsReadable_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("imatrix");
        QTest::addColumn<QString>("budget");
        QTest::newRow("tiny-llama") << "tiny-llama-F32.gguf" << QString() << "1.2MB";
        QTest::newRow("tiny-llama imatrix") << "tiny-llama-F32.gguf" << "llama.cpp/tiny-llama.imatrix.gguf" << "0.8MB";
        QTest::newRow("tiny-moe") << "tiny-moe-F16.gguf" << QString() << "3MB";
    }
    void frontierPlotIsReadable()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, imatrix);
        QFETCH(QString, budget);
        const auto model = testsupport::openModelAt(fixturePath(fixture));
        QVERIFY(model);
        RecipePage page(model);
        page.resize(900, 700);
        page.show();
        page.sections()->setCurrentWidget(page.plannerView());
        if (!imatrix.isEmpty()) {
            QSignalSpy loaded(&page, &RecipePage::imatrixLoaded);
            page.loadImatrix(fixturePath(imatrix));
            QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
            QVERIFY(loaded.first().at(0).toBool());
        }
        MixPlannerView& planner = *page.plannerView();
        QSignalSpy finished(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText(budget);
        planner.plan();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QCustomPlot* plot = planner.plot();
        plot->replot();
        const QRectF area = plot->axisRect()->rect();
        const auto& labels = planner.frontierPlot()->labels();
        int evaluated = 0;
        for (const auto& point : planner.presets())
            evaluated += point.evaluated;
        QCOMPARE(int(labels.size()), evaluated);
        std::vector<QRectF> rects;
        for (QCPItemText* label : labels)
            rects.emplace_back(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition());
        std::vector<QPointF> points;
        for (int g = 1; g < plot->graphCount(); ++g)
            for (auto it = plot->graph(g)->data()->begin(); it != plot->graph(g)->data()->end(); ++it)
                points.emplace_back(plot->xAxis->coordToPixel(it->key), plot->yAxis->coordToPixel(it->value));
        for (std::size_t i = 0; i < rects.size(); ++i) {
            QVERIFY2(area.contains(rects[i]), qPrintable(labels[i]->text()));
            for (std::size_t j = i + 1; j < rects.size(); ++j)
                QVERIFY2(!rects[i].intersects(rects[j]), qPrintable(labels[i]->text() + " over " + labels[j]->text()));
            for (const QPointF& p : points)
                QVERIFY2(!rects[i].intersects(QRectF(p.x() - 3, p.y() - 3, 6, 6)), qPrintable(labels[i]->text() + " over a point"));
        }
        for (const QPointF& p : points)
            QVERIFY2(area.adjusted(5, 5, -5, -5).contains(p), "a marker cut at the edge of the axes");
        // The budget line, at the budget's size.
        QCPItemStraightLine* line = planner.frontierPlot()->budgetLine();
        QVERIFY(line);
        const double budgetBytes = gguf::parseBudget(budget.toStdString())->value;
        QCOMPARE(line->point1->coords().x(), budgetBytes / 1048576.0);
        QVERIFY(area.adjusted(1, 0, -1, 0).contains(QPointF(plot->xAxis->coordToPixel(budgetBytes / 1048576.0), area.center().y())));
        // Every preset point has its tooltip.
        for (const auto& point : planner.presets()) {
            if (!point.evaluated)
                continue;
            const QString name = QString::fromUtf8(point.preset->name.data(), int(point.preset->name.size()));
            double y = 0;  // where the plot drew it (a lossless preset: at the bottom of the log axis)
            for (auto it = plot->graph(1)->data()->begin(); it != plot->graph(1)->data()->end(); ++it)
                if (it->key == double(point.mix.fileBytes) / 1048576.0)
                    y = it->value;
            const QPoint at(int(std::lround(plot->xAxis->coordToPixel(double(point.mix.fileBytes) / 1048576.0))), int(std::lround(plot->yAxis->coordToPixel(y))));
            const QString tip = planner.frontierPlot()->toolTipAt(at);
            QVERIFY2(tip.contains(QString::number(point.mix.fileBytes)), qPrintable(name + ": " + tip));
        }
        QVERIFY(planner.frontierPlot()->warningText().isEmpty());
    }

    // A model of zeros quantizes without error: every figure is 0. The plot still shows the
    // presets (on a linear axis) and says what that means instead of drawing nothing.
    void degenerateErrorsAreSaidNotHidden()
    {
        QTemporaryDir dir;
        const QString zeros = dir.filePath("zeros-F32.gguf");
        QVERIFY(QFile::copy(fixturePath("tiny-llama-F32.gguf"), zeros));
        QVERIFY(QFile::setPermissions(zeros, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        {
            const auto source = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
            QFile file(zeros);
            QVERIFY(file.open(QIODevice::ReadWrite));
            for (const auto& tensor : source->tensors()) {
                QVERIFY(file.seek(qint64(tensor.fileOffset)));
                QCOMPARE(file.write(QByteArray(qsizetype(tensor.nbytes), '\0')), qint64(tensor.nbytes));
            }
        }
        const auto model = testsupport::openModelAt(zeros);
        QVERIFY(model);
        RecipePage page(model);
        page.resize(900, 700);
        page.show();
        MixPlannerView& planner = *page.plannerView();
        QSignalSpy finished(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("1.2MB");
        planner.plan();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QCOMPARE(planner.result()->mix.error, 0.0);
        QVERIFY2(planner.frontierPlot()->warningText().contains("Every figure is 0"), qPrintable(planner.frontierPlot()->warningText()));
        QCOMPARE(planner.plot()->yAxis->scaleType(), QCPAxis::stLinear);
        QVERIFY(planner.plot()->graph(1)->dataCount() > 0);
    }

    // The audit's columns fit their contents: the tensor name is whole, the type columns narrow.
    void auditColumnsFitTheirContents()
    {
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        RecipePage page(model);
        page.resize(1600, 800);
        page.show();
        page.sections()->setCurrentWidget(page.auditView());
        QTableWidget* table = page.auditView()->differencesTable();
        const auto widest = [table](int column) {
            int width = 0;
            for (int r = 0; r < table->rowCount(); ++r)
                width = std::max(width, table->fontMetrics().horizontalAdvance(table->item(r, column)->text()));
            return width;
        };
        QVERIFY(table->columnWidth(0) >= widest(0));
        QVERIFY(table->columnWidth(0) >= table->fontMetrics().horizontalAdvance("blk.1.ffn_down.weight"));
        for (int c = 1; c < 3; ++c)
            QVERIFY2(table->columnWidth(c) <= std::max(widest(c), table->horizontalHeader()->sectionSizeHint(c)) + 30,
                     qPrintable(QString::number(table->columnWidth(c))));
    }

    // An 80-layer grid scrolls; its totals rows do not: they are the strip under it.
    // Bits per weight are rounded as the CLI prints them (printf: a tie goes to even), not by
    // QString::number, which rounds 6.5625 up to 6.563.
    void bpwRoundsAsTheCli()
    {
        std::vector<gguf::GridTensor> tensors;
        tensors.push_back({"blk.0.attn_q.weight", gguf::typeIdValue(gguf::GgmlTypeId::Q6_K), 105, 128});
        const gguf::RecipeGrid grid = gguf::buildRecipeGrid(tensors);
        QCOMPARE(grid.total.bitsPerWeight(), 6.5625);
        RecipeGridView view;
        view.showGrid(grid);
        QCOMPARE(cell(view, "bpw", "bpw"), QStringLiteral("6.562"));
        QCOMPARE(cell(view, "blk.0", "bpw"), QStringLiteral("6.562"));
        QVERIFY(view.item(0, 0)->toolTip().contains(QStringLiteral("6.562 bpw")));
    }

    void gridTotalsStayInSight()
    {
        std::vector<gguf::GridTensor> tensors;
        for (int layer = 0; layer < 80; ++layer)
            for (const char* role : {"attn_q", "attn_v", "ffn_down"})
                tensors.push_back({"blk." + std::to_string(layer) + "." + role + ".weight", gguf::typeIdValue(gguf::GgmlTypeId::Q4_K), 1 << 20, 1 << 21});
        const gguf::RecipeGrid grid = gguf::buildRecipeGrid(tensors);
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-Q4_K.gguf"));
        RecipePage page(model);
        page.resize(900, 600);
        page.show();
        RecipeGridView& view = *page.gridView();
        view.showGrid(grid);
        QApplication::processEvents();
        const int rows = view.rowCount();
        QCOMPARE(rows, 80 + 2);
        QCOMPARE(cell(view, "bpw", "bpw"), QStringLiteral("4.000"));
        QVERIFY(view.isRowHidden(rows - 1) && view.isRowHidden(rows - 2) && !view.isRowHidden(0));
        QTableView& totals = *view.totalsView();
        QVERIFY(totals.isVisible());
        QCOMPARE(totals.model(), view.model());
        QVERIFY(!totals.isRowHidden(rows - 1) && !totals.isRowHidden(rows - 2) && totals.isRowHidden(0));
        QVERIFY(view.verticalScrollBar()->maximum() > 0);
        for (const int position : {0, view.verticalScrollBar()->maximum() / 2, view.verticalScrollBar()->maximum()}) {
            view.verticalScrollBar()->setValue(position);
            QApplication::processEvents();
            // The strip is right under the grid and shows both totals rows whole.
            QCOMPARE(totals.mapTo(&page, QPoint(0, 0)).y(), view.mapTo(&page, QPoint(0, view.height())).y());
            QVERIFY(totals.rowViewportPosition(rows - 2) >= 0);
            QVERIFY(totals.rowViewportPosition(rows - 1) + totals.rowHeight(rows - 1) <= totals.viewport()->height());
        }
        for (int c = 0; c < view.columnCount(); ++c)
            QCOMPARE(totals.columnWidth(c), view.columnWidth(c));
        // The totals' "240 MiB" fits its column, though no cell of the grid above is as wide.
        const int bytesColumn = view.columnCount() - 2;
        QVERIFY(view.columnWidth(bytesColumn - 1) >= view.fontMetrics().horizontalAdvance(view.item(rows - 2, bytesColumn - 1)->text()));
    }
};

QTEST_MAIN(TestGuiRecipe)
#include "tst_gui_recipe.moc"
