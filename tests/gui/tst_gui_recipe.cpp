// The recipe page offscreen: the grid shows the stored types (or llama-quantize's for a preset,
// rules applied, with the size preview), coloured by type; the audit lists the tensors that
// differ from llama-quantize's choice; the planner measures in the background, stays within the
// budget, beats or ties the best preset that fits, draws the frontier with the presets and
// saves a rules file; a hopeless budget is reported, not planned.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "ui/recipe/MixPlannerView.h"
#include "ui/recipe/RecipeAuditView.h"
#include "ui/recipe/RecipeGridView.h"
#include "ui/recipe/RecipePage.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/shell/MainWindow.h"

#include <QAction>
#include <QMenuBar>
#include <QTabWidget>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
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
        QCOMPARE(plot->itemCount(), evaluated);  // one label per preset
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
        page.loadImatrix(fixturePath("llama.cpp/tiny-llama.imatrix.gguf"));
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
        QVERIFY(!ours->metadataString("quantize.imatrix.file").empty());
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
};

QTEST_MAIN(TestGuiRecipe)
#include "tst_gui_recipe.moc"
