// An importance matrix of another model, wherever the app takes one (Convert…, the Recipe page,
// Compare Quant Levels…, the Experts page's quantization error, File › Open Importance Matrix):
// refused with the reason the CLI gives when none of its entries names a tensor of the model or
// an entry's rows have another width, or used with the CLI's warnings shown where it was chosen
// when the two leave each other some tensors out. Nothing is asked of the user: no dialog waits.

#include "Fixtures.h"
#include "LegacyImatrixFile.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/ComparePage.h"
#include "ui/experts/ExpertQuantErrorView.h"
#include "ui/experts/ExpertsPage.h"
#include "ui/recipe/RecipePage.h"
#include "ui/shell/ConvertDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ModelPage.h"
#include "ui/shell/OpenImatrix.h"

#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>


using namespace testsupport;

namespace {

const QString kDense = QStringLiteral("tiny-llama-F32.gguf");
const QString kMoe = QStringLiteral("tiny-moe-F16.gguf");

// What the place showed once the matrix was read: whether it took the matrix, and its text.
struct Shown {
    bool used = false;
    QString text;
};

}  // namespace

class TestGuiImatrixFit : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString matrixFor(const QString& kind) const
    {
        if (kind == QLatin1String("moe on dense"))
            return fixturePath(QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf"));
        if (kind == QLatin1String("dense on moe"))
            return fixturePath(QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf"));
        if (kind == QLatin1String("none in common"))  // tiny-moe's router and experts, on tiny-llama
            return writeLegacyImatrix(m_dir, QStringLiteral("moe-only.dat"), {{"blk.0.ffn_gate_inp.weight", 256}, {"blk.0.ffn_up_exps.weight", 2048}});
        if (kind == QLatin1String("dense only"))  // tiny-llama's dense ffn, on tiny-moe
            return writeLegacyImatrix(m_dir, QStringLiteral("dense-only.dat"), {{"blk.0.ffn_up.weight", 256}});
        return writeLegacyImatrix(m_dir, QStringLiteral("narrow.dat"), {{"blk.0.attn_q.weight", 128}});  // 128 of attn_q's 256 columns
    }

    Shown convert(const QString& model, const QString& matrix)
    {
        ConvertDialog dialog(openFixtureModel(model));
        QSignalSpy loaded(&dialog, &ConvertDialog::importanceMatrixLoaded);
        dialog.setImportanceMatrixPath(matrix);
        if (!loaded.wait(kHangGuardMs))
            return {};
        const auto* note = dialog.findChild<QLabel*>(QStringLiteral("imatrixNote"));
        return {dialog.hasImportanceMatrix(), note ? note->text() : QString()};
    }

    Shown recipe(const QString& model, const QString& matrix)
    {
        RecipePage page(openFixtureModel(model));
        QSignalSpy loaded(&page, &RecipePage::imatrixLoaded);
        page.loadImatrix(matrix);
        if (!loaded.wait(kHangGuardMs))
            return {};
        // Warnings under the controls; a refusal where the recipe's summary goes.
        const auto* warning = page.findChild<QLabel*>(QStringLiteral("recipeImatrixWarning"));
        const bool warned = warning && warning->isVisibleTo(&page);
        return {page.importance() != nullptr, warned ? warning->text() : page.previewLabel()->text()};
    }

    Shown compare(const QString& model, const QString& matrix)
    {
        CompareDialog dialog;
        dialog.addFile(fixturePath(model));
        dialog.setImportanceMatrixPath(matrix);
        dialog.setSimulatedTypeChecked(QStringLiteral("q8_0"), true);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.openAndAccept();
        // Accepted (the page then says what the matrix leaves out), or refused in the dialog.
        const auto ended = [&]() { return !accepted.isEmpty() || dialog.message().startsWith(QLatin1String("Cannot")); };
        if (!QTest::qWaitFor(ended, kHangGuardMs))
            return {};
        if (accepted.isEmpty())
            return {false, dialog.message()};
        ComparePage page(dialog.models(), dialog.simulatedTypes(), nullptr, dialog.importanceMatrix());
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        if (page.isComputing() && !finished.wait(kHangGuardMs))
            return {};
        return {page.comparison() && page.comparison()->importance(), page.findChild<QLabel*>(QStringLiteral("problemsLabel"))->text()};
    }

    Shown experts(const QString& model, const QString& matrix)
    {
        ExpertsPage page(openFixtureModel(model));
        page.resize(1000, 700);
        page.show();
        if (!page.selectProjection(gguf::ExpertProjection::Up))
            return {};
        ExpertQuantErrorView* view = page.quantError();
        QSignalSpy loaded(view, &ExpertQuantErrorView::importanceMatrixLoaded);
        view->setImportanceMatrixPath(matrix);
        if (!loaded.wait(kHangGuardMs))
            return {};
        const Shown shown{loaded.first().at(0).toBool() && view->hasImportanceMatrix(),
                          view->findChild<QLabel*>(QStringLiteral("quantErrorMessage"))->text()};
        view->setImportanceMatrixPath({});  // stops the weighted run it started
        return shown;
    }

    Shown openImatrix(const QString& model, const QString& matrix)
    {
        MainWindow window;
        window.openFile(fixturePath(model));
        if (!QTest::qWaitFor([&window]() { return window.tabs()->count() == 1; }, kHangGuardMs))
            return {};
        auto* page = qobject_cast<ModelPage*>(window.tabs()->widget(0));
        if (!page)
            return {};
        openImportanceMatrix(&window, matrix);
        if (!QTest::qWaitFor([&window]() { return window.statusBar()->currentMessage().startsWith(QLatin1String("Opened importance matrix")); },
                             kHangGuardMs))
            return {};
        return {page->importanceMatrixPath() == matrix, window.statusBar()->currentMessage()};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void anotherModelsMatrixIsRefusedOrWarnedAbout_data()
    {
        QTest::addColumn<QString>("place");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("matrix");
        QTest::addColumn<bool>("used");
        QTest::addColumn<QStringList>("said");
        const QStringList moeOnDense{QStringLiteral("the importance matrix may be of another model: 8 of its 16 entries name no tensor of this model "
                                                    "(blk.0.ffn_down_exps.weight, "),
                                     QStringLiteral("the importance matrix has no entry for 8 of the model's 16 matrices (blk.0.ffn_gate.weight, ")};
        const QStringList noneInCommon{QStringLiteral("this importance matrix is of another model: none of its 2 entries names a tensor of this model")};
        for (const char* place : {"convert", "recipe", "compare", "open imatrix"}) {
            QTest::newRow(qPrintable(QStringLiteral("%1, warned").arg(QLatin1String(place)))) << place << kDense << "moe on dense" << true << moeOnDense;
            QTest::newRow(qPrintable(QStringLiteral("%1, refused").arg(QLatin1String(place)))) << place << kDense << "none in common" << false << noneInCommon;
        }
        QTest::newRow("experts, warned") << "experts" << kMoe << "dense on moe" << true
                                         << QStringList{QStringLiteral("the importance matrix may be of another model: 6 of its 14 entries name no tensor of "
                                                                       "this model (blk.0.ffn_down.weight, "),
                                                        QStringLiteral("the importance matrix has no entry for 10 of the model's 18 matrices")};
        QTest::newRow("experts, refused") << "experts" << kMoe << "dense only" << false
                                          << QStringList{QStringLiteral("this importance matrix is of another model: its one entry names no tensor of this model")};
        // Convert… read the matrix without checking it against the model: rows of another width
        // were taken, and the conversion failed only once it reached that tensor.
        QTest::newRow("convert, rows of another width")
            << "convert" << kDense << "narrow" << false
            << QStringList{QStringLiteral("blk.0.attn_q.weight: shape: column count 128 differs from the tensor's ne[0] = 256")};
    }

    void anotherModelsMatrixIsRefusedOrWarnedAbout()
    {
        QFETCH(QString, place);
        QFETCH(QString, model);
        QFETCH(QString, matrix);
        QFETCH(bool, used);
        QFETCH(QStringList, said);
        const QString path = matrixFor(matrix);
        QVERIFY(!path.isEmpty());
        const Shown shown = place == QLatin1String("convert") ? convert(model, path)
                          : place == QLatin1String("recipe")  ? recipe(model, path)
                          : place == QLatin1String("compare") ? compare(model, path)
                          : place == QLatin1String("experts") ? experts(model, path)
                                                              : openImatrix(model, path);
        QVERIFY2(!shown.text.isEmpty(), "nothing shown");
        QCOMPARE(shown.used, used);
        for (const QString& line : said)
            QVERIFY2(shown.text.contains(line), qPrintable(shown.text));
    }
};

QTEST_MAIN(TestGuiImatrixFit)
#include "tst_gui_imatrix_fit.moc"
