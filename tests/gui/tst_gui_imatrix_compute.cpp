// Importance matrices made and saved in the app: File › Compute Importance Matrix from Text…
// writes llama-imatrix's bytes in the background (progress per chunk, Cancel leaving no file)
// and opens the result as an Importance page; the page's Save As… writes either format as
// llama-imatrix converts it.

#include "Fixtures.h"
#include "ImatrixOracle.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "ui/imatrix/ComputeImatrixDialog.h"
#include "ui/imatrix/ImatrixPage.h"
#include "ui/session/LoadedImatrix.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/OpenImatrix.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::fixturePath;
using testsupport::kHangGuardMs;

using testsupport::imatrixOraclePath;
const QString& kText = testsupport::kImatrixText;

class TestGuiImatrixCompute : public QObject {
    Q_OBJECT

private slots:
    // Two chunks of tiny-llama with output.weight: llama-imatrix's file (tests/data/imatrix-oracle).
    void computesLlamaImatrixsBytes()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        QTemporaryDir dir;
        ComputeImatrixDialog dialog(model);
        dialog.setTextPath(kText);
        dialog.setOutputPath(dir.filePath("computed.gguf"));
        dialog.setChunkSize(128);
        dialog.setChunkLimit(2);
        dialog.setProcessOutput(true);
        QSignalSpy finished(&dialog, &ComputeImatrixDialog::computationFinished);
        dialog.startComputation();
        QVERIFY(dialog.isComputing());
        QVERIFY(finished.count() == 1 || finished.wait(kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY2(dialog.statusText().contains("2 chunks of 128 tokens") && dialog.statusText().contains("433.6435"),
                 qPrintable(dialog.statusText()));
        QVERIFY(testsupport::readWholeFile(dir.filePath("computed.gguf")) == testsupport::readWholeFile(imatrixOraclePath("tiny-llama-2chunks-output.imatrix.gguf")));
    }

    // Cancelled, the run writes nothing and says so.
    void cancelWritesNothing()
    {
        const auto model = testsupport::openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(model);
        QTemporaryDir dir;
        ComputeImatrixDialog dialog(model);
        dialog.setTextPath(kText);
        dialog.setOutputPath(dir.filePath("cancelled.gguf"));
        dialog.setChunkSize(128);
        QSignalSpy finished(&dialog, &ComputeImatrixDialog::computationFinished);
        dialog.startComputation();
        dialog.cancelComputation();
        QVERIFY(finished.count() == 1 || finished.wait(kHangGuardMs));
        QVERIFY(!finished.first().at(0).toBool());
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(!QFile::exists(dir.filePath("cancelled.gguf")));
        QVERIFY2(dialog.statusText().startsWith("Not computed: cancelled"), qPrintable(dialog.statusText()));
    }

    // Save As… of the fixture's GGUF matrix as .dat: llama-imatrix's own .dat of the same run.
    void saveAsWritesEitherFormat()
    {
        auto loaded = LoadedImatrix::load(fixturePath("llama.cpp/tiny-moe.imatrix.gguf"), nullptr);
        QVERIFY(loaded.ok());
        ImatrixPage page(loaded.value());
        QTemporaryDir dir;
        QSignalSpy saved(&page, &ImatrixPage::saved);
        page.saveAs(dir.filePath("again.dat"));
        QVERIFY(saved.count() == 1 || saved.wait(kHangGuardMs));
        QVERIFY2(saved.first().at(0).toBool(), qPrintable(saved.first().at(1).toString()));
        QVERIFY2(page.saveStatus()->text().contains("per-expert token counts of 6 matrices are not kept"), qPrintable(page.saveStatus()->text()));
        QVERIFY(testsupport::readWholeFile(dir.filePath("again.dat")) == testsupport::readWholeFile(fixturePath("llama.cpp/tiny-moe.imatrix.dat")));
    }

    // From the menu: the dialog computes for the model in view, and its file opens as a page.
    void computedMatrixOpensAsAPage()
    {
        MainWindow window;
        window.show();
        window.openFile(fixturePath("tiny-llama-F32.gguf"));
        QTRY_VERIFY_WITH_TIMEOUT(window.currentModelPage() != nullptr, kHangGuardMs);
        computeImportanceMatrix(&window);
        auto* dialog = window.findChild<ComputeImatrixDialog*>();
        QVERIFY(dialog);
        QTemporaryDir dir;
        dialog->setTextPath(kText);
        dialog->setOutputPath(dir.filePath("menu.gguf"));
        dialog->setChunkSize(128);
        dialog->setChunkLimit(2);
        dialog->startComputation();
        QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<ImatrixPage*>(window.tabs()->currentWidget()) != nullptr, kHangGuardMs);
        auto* page = qobject_cast<ImatrixPage*>(window.tabs()->currentWidget());
        QCOMPARE(QString::fromStdString(page->imatrix().matrix->path()), dir.filePath("menu.gguf"));
        QCOMPARE(page->imatrix().refusal, QString());
        QCOMPARE(page->imatrix().matrix->entries().size(), std::size_t{14});
    }
};

QTEST_MAIN(TestGuiImatrixCompute)
#include "tst_gui_imatrix_compute.moc"
