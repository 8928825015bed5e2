// The main window's frame: a restored geometry pulled back onto the screen, the window title
// naming the file of the current tab, distinct titles for Compare tabs, the Copy action, file
// dialogs that start in the open model's folder with their columns fitted, and files opened
// together (the command line, a drop, File › Open) each in its own tab.

#include "Screenshot.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/ComparePage.h"
#include "ui/recipe/MixPlannerView.h"
#include "ui/recipe/RecipePage.h"
#include "ui/shell/ConvertDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ModelPage.h"
#include "ui/shell/WindowPlacement.h"
#include "ui/shell/ThemeChoice.h"
#include "ui/shell/FindEverywhere.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/tensor/TensorBrowser.h"
#include "core/types/GgmlType.h"
#include "ui/common/FileDialogs.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLineEdit>
#include <QMimeData>
#include <QUrl>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <functional>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QTreeView>
#include <QTreeView>
#include <QLabel>
#include <QStatusBar>
#include <QGuiApplication>
#include <QScreen>
#include <QStyle>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QWindow>
#include <QtTest>
#include <qcustomplot.h>
#include <QMenu>

using namespace testsupport;

namespace {
constexpr int kJobTimeoutMs = 120000;

std::shared_ptr<const gguf::Model> openFixture(const QString& name)
{
    auto model = gguf::Model::open(fixturePath(name).toStdString());
    return model ? model.value() : nullptr;
}
// The file dialog `open` brings up, as it comes up: its folder and whether its Size, Type and
// Date columns follow their contents (the name taking the rest). The dialog is then cancelled.
struct SeenFileDialog {
    bool shown = false;
    QString caption;
    QString folder;
    bool fitted = false;
};

SeenFileDialog watchFileDialog(const std::function<void()>& open)
{
    SeenFileDialog seen;
    QTimer poll;
    poll.setInterval(10);
    QObject::connect(&poll, &QTimer::timeout, [&seen, &poll]() {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible())
            return;
        poll.stop();
        // After the zero timers queued before the dialog's loop began (columns are fitted in one
        // when the dialog's widgets come late).
        QTimer::singleShot(0, dialog, [&seen, dialog]() {
            seen.shown = true;
            seen.caption = dialog->windowTitle();
            seen.folder = QFileInfo(dialog->directory().absolutePath()).canonicalFilePath();
            const auto* tree = dialog->findChild<QTreeView*>(QStringLiteral("treeView"));
            seen.fitted = tree && tree->header()->count() > 1 && tree->header()->sectionResizeMode(0) == QHeaderView::Stretch;
            for (int column = 1; tree && column < tree->header()->count(); ++column)
                seen.fitted = seen.fitted && tree->header()->sectionResizeMode(column) == QHeaderView::ResizeToContents;
            dialog->reject();
        });
    });
    poll.start();
    open();
    return seen;
}

QPushButton* pushButton(const QWidget& owner, const QString& text)
{
    for (QPushButton* button : owner.findChildren<QPushButton*>())
        if (button->text() == text)
            return button;
    return nullptr;
}

QStringList tabTexts(const MainWindow& window)
{
    QStringList texts;
    for (int i = 0; i < window.tabs()->count(); ++i)
        texts << window.tabs()->tabText(i);
    return texts;
}

// Every tab of `window` holds a model page, but those whose text starts with "Error: ".
bool modelPagesButErrors(const MainWindow& window)
{
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (!window.tabs()->tabText(i).startsWith(QLatin1String("Error: ")) && !qobject_cast<ModelPage*>(window.tabs()->widget(i)))
            return false;
    return true;
}

QAction* menuAction(const MainWindow& window, const QString& text)
{
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == text)
            return action;
    return nullptr;
}
}  // namespace

class TestGuiMainWindow : public QObject {
    Q_OBJECT

private slots:
    // Qt's own file dialog (no desktop dialog offscreen) sizes Size, Type and Date to their
    // text: "19....MiB" had its middle elided in a 63 px column.
    void fileDialogColumnsFit()
    {
        QFileDialog dialog(nullptr, QStringLiteral("Open"), QFileInfo(testsupport::fixturePath(QStringLiteral("llama.cpp/README.md"))).absolutePath());
        dialog.setOption(QFileDialog::DontUseNativeDialog);
        dialog.setViewMode(QFileDialog::Detail);
        fitFileDialogColumns(&dialog);
        dialog.resize(900, 500);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto* tree = dialog.findChild<QTreeView*>(QStringLiteral("treeView"));
        QVERIFY(tree);
        const auto sizesFit = [tree]() {
            const QAbstractItemModel* model = tree->model();
            const QModelIndex root = tree->rootIndex();
            const QFontMetrics metrics(tree->font());
            int sized = 0;  // the sizes arrive after the names, from Qt's file-info thread
            for (int row = 0; row < model->rowCount(root); ++row)
                for (int column = 1; column <= 2; ++column) {
                    const QString text = model->index(row, column, root).data().toString();
                    sized += column == 1 && text.contains(QLatin1String("iB"));
                    // The text and the cell's margins (a few pixels each side).
                    if (metrics.horizontalAdvance(text) + 6 > tree->header()->sectionSize(column))
                        return false;
                }
            return sized >= 5;
        };
        QTRY_VERIFY_WITH_TIMEOUT(sizesFit(), kJobTimeoutMs);
        // Whatever width Qt happened to start them at: they follow their contents.
        for (int column = 1; column < tree->header()->count(); ++column)
            QCOMPARE(tree->header()->sectionResizeMode(column), QHeaderView::ResizeToContents);
    }

    // Every file dialog starts in the open model's folder, not in the directory the program was
    // started from, and sizes its columns to their contents: the window's Open, Open Importance
    // Matrix, Diff With and Save As, the Recipe page's importance matrix, Convert to and Save
    // rules, the Compare dialog's Add Files and importance matrix, the Convert dialog's output
    // and importance matrix.
    void fileDialogsStartInTheModelsFolder_data()
    {
        QTest::addColumn<QString>("dialog");
        for (const char* dialog : {"Open", "Open Importance Matrix", "Diff With", "Save As", "Recipe importance matrix", "Recipe Convert to",
                                   "Save rules", "Compare Add Files", "Compare importance matrix", "Convert To", "Convert importance matrix"})
            QTest::newRow(dialog) << QString::fromLatin1(dialog);
    }

    void fileDialogsStartInTheModelsFolder()
    {
        QFETCH(QString, dialog);
        QSettings().clear();
        // Qt's dialog restores its last header state, resize modes included: a dialog fitted
        // once (by an earlier test, or run) would make every later one look fitted.
        QSettings(QSettings::UserScope, QStringLiteral("QtProject")).remove(QStringLiteral("FileDialog"));
        QTemporaryDir modelFolder, startFolder;
        QVERIFY(modelFolder.isValid() && startFolder.isValid());
        const QString model = modelFolder.filePath(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-F32.gguf")), model));
        const QString workingDirectory = QDir::currentPath();
        QVERIFY(QDir::setCurrent(startFolder.path()));
        const auto restore = qScopeGuard([&workingDirectory]() { QDir::setCurrent(workingDirectory); });

        SeenFileDialog seen;
        if (dialog.startsWith(QLatin1String("Recipe")) || dialog == QLatin1String("Save rules")) {
            const auto opened = testsupport::openModelAt(model);
            QVERIFY(opened);
            RecipePage page(opened);
            page.show();
            QPushButton* button = nullptr;
            if (dialog == QLatin1String("Save rules")) {
                MixPlannerView& planner = *page.plannerView();
                QSignalSpy finished(&planner, &MixPlannerView::planFinished);
                planner.setBudgetText(QStringLiteral("1.2MB"));
                planner.plan();
                QVERIFY(finished.count() == 1 || finished.wait(kJobTimeoutMs));
                button = planner.findChild<QPushButton*>(QStringLiteral("saveRules"));
            } else if (dialog.endsWith(QLatin1String("Convert to"))) {
                page.findChild<QComboBox*>(QStringLiteral("recipePreset"))->setCurrentIndex(1);  // a preset: stored types convert to nothing
                button = page.findChild<QPushButton*>(QStringLiteral("recipeConvert"));
            } else {
                button = page.findChild<QPushButton*>(QStringLiteral("recipeImatrixPick"));
            }
            QVERIFY(button && button->isEnabled());
            seen = watchFileDialog([button]() { button->click(); });
        } else if (dialog.startsWith(QLatin1String("Compare")) || dialog.startsWith(QLatin1String("Convert"))) {
            std::unique_ptr<QDialog> owner;
            if (dialog.startsWith(QLatin1String("Compare"))) {
                owner = std::make_unique<CompareDialog>(model);
            } else {
                const auto opened = testsupport::openModelAt(model);
                QVERIFY(opened);
                owner = std::make_unique<ConvertDialog>(opened);
            }
            owner->show();
            const QString text = dialog == QLatin1String("Compare Add Files") ? QStringLiteral("Add Files…")
                               : dialog == QLatin1String("Convert To")        ? QStringLiteral("Browse…")
                                                                              : QStringLiteral("Choose…");
            QPushButton* button = pushButton(*owner, text);
            QVERIFY2(button, qPrintable(text));
            seen = watchFileDialog([button]() { button->click(); });
        } else {
            MainWindow window;
            window.openFile(model);
            QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
            const QString text = dialog == QLatin1String("Open")                     ? QStringLiteral("&Open…")
                               : dialog == QLatin1String("Open Importance Matrix") ? QStringLiteral("Open &Importance Matrix…")
                               : dialog == QLatin1String("Diff With")              ? QStringLiteral("&Diff With…")
                                                                                   : QStringLiteral("Save &As…");
            QAction* action = menuAction(window, text);
            QVERIFY2(action, qPrintable(text));
            seen = watchFileDialog([action]() { action->trigger(); });
        }
        QVERIFY2(seen.shown, "no file dialog came up");
        QCOMPARE(seen.folder, QFileInfo(modelFolder.path()).canonicalFilePath());
        QVERIFY2(seen.fitted, qPrintable(seen.caption));
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void clampKeepsWindowsThatFit_data()
    {
        QTest::addColumn<QRect>("frame");
        QTest::addColumn<QRect>("available");
        QTest::addColumn<QRect>("expected");
        const QRect screen(0, 0, 1600, 1000);
        QTest::newRow("fits") << QRect(100, 100, 800, 600) << screen << QRect(100, 100, 800, 600);
        QTest::newRow("too big") << QRect(0, 0, 1920, 1200) << screen << screen;
        QTest::newRow("too big, off to the right") << QRect(300, 200, 1920, 1200) << screen << screen;
        QTest::newRow("hangs off the bottom right") << QRect(1200, 800, 800, 600) << screen << QRect(800, 400, 800, 600);
        QTest::newRow("above and left") << QRect(-500, -50, 800, 600) << screen << QRect(0, 0, 800, 600);
        QTest::newRow("second screen") << QRect(0, 0, 1000, 700) << QRect(1600, 0, 1280, 1024) << QRect(1600, 0, 1000, 700);
    }

    void clampKeepsWindowsThatFit()
    {
        QFETCH(QRect, frame);
        QFETCH(QRect, available);
        QFETCH(QRect, expected);
        QCOMPARE(clampedToScreen(frame, available), expected);
    }

    // A geometry saved on a bigger screen comes back inside this one.
    void restoredGeometryFitsTheScreen()
    {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        {
            MainWindow big;
            big.show();
            big.setGeometry(QRect(available.topLeft() + QPoint(200, 150), available.size() + QSize(320, 200)));
            big.close();  // saves the geometry
        }
        MainWindow window;
        QVERIFY2(available.contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(window.frameGeometry().x()).arg(window.frameGeometry().y())
                                .arg(window.frameGeometry().width()).arg(window.frameGeometry().height())));
        QSettings().clear();
    }

    // At QT_SCALE_FACTOR=2 a 1920×1080 screen is 960×540 (less a panel): the main window with a
    // model open and the Convert dialog fit it, title bar and buttons included (the window opened
    // taller than the screen, the dialog's buttons below its edge).
    void windowsFitAScaledScreen()
    {
        const QRect small(0, 0, 960, 510);
        const int titleBar = QApplication::style()->pixelMetric(QStyle::PM_TitleBarHeight);
        MainWindow window;
        window.openFile(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        fitWindowIntoScreen(&window, small);
        QVERIFY2(window.height() + titleBar <= small.height() && window.width() <= small.width(),
                 qPrintable(QStringLiteral("%1x%2, at least %3x%4").arg(window.width()).arg(window.height())
                                .arg(window.minimumSizeHint().width()).arg(window.minimumSizeHint().height())));
        QVERIFY(small.contains(window.geometry()));

        const auto model = openFixture(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(model);
        ConvertDialog dialog(model);
        fitWindowIntoScreen(&dialog, small);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY2(dialog.height() + titleBar <= small.height(),
                 qPrintable(QStringLiteral("%1 high, at least %2").arg(dialog.height()).arg(dialog.minimumSizeHint().height())));
        QPushButton* convert = pushButton(dialog, QStringLiteral("Convert"));
        QVERIFY(convert);
        QVERIFY(dialog.rect().contains(QRect(convert->mapTo(&dialog, QPoint(0, 0)), convert->size())));
    }

    // View › Theme › Dark: the window and its plots turn dark (their backgrounds and axes), the
    // plots' colours keep their meaning (a type's colour is the same); System brings back the
    // palette the app started with. The screenshot goes to docs/screenshots/dark-mode.png.
    void darkThemeFromTheViewMenu()
    {
        const QPalette started = QApplication::palette();
        const QColor q4 = quantTypeColour(gguf::typeIdValue(gguf::GgmlTypeId::Q4_K));
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openFile(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        auto* menu = window.findChild<QMenu*>(QStringLiteral("themeMenu"));
        QVERIFY(menu);
        const auto themeAction = [menu](const QString& text) -> QAction* {
            for (QAction* action : menu->actions())
                if (action->text() == text)
                    return action;
            return nullptr;
        };
        QVERIFY(themeAction(QStringLiteral("&Dark")) && themeAction(QStringLiteral("&System")));
        QVERIFY(themeAction(QStringLiteral("&System"))->isChecked());
        themeAction(QStringLiteral("&Dark"))->trigger();
        QVERIFY(paletteIsDark(QApplication::palette()));
        QCOMPARE(savedTheme(), Theme::Dark);
        QCOMPARE(quantTypeColour(gguf::typeIdValue(gguf::GgmlTypeId::Q4_K)), q4);
        auto* page = qobject_cast<ModelPage*>(window.tabs()->widget(0));
        QVERIFY(page);
        page->showTensorsPage();
        page->tensorBrowser()->selectTensor(static_cast<int>(page->model().findTensor("blk.1.ffn_up_exps.weight") - page->model().tensors().data()));
        auto* plot = page->findChild<QCustomPlot*>();
        QVERIFY(plot);
        QTRY_VERIFY(plot->xAxis->tickLabelColor().lightness() > 160);
        QVERIFY(testsupport::saveScreenshot(window, QStringLiteral("dark-mode"), testsupport::Brightness::Dark));
        themeAction(QStringLiteral("&System"))->trigger();
        QCOMPARE(QApplication::palette().color(QPalette::Window), started.color(QPalette::Window));
        QCOMPARE(savedTheme(), Theme::System);
        QTRY_VERIFY(plot->xAxis->tickLabelColor().lightness() < 128);
    }

    // Ctrl+K: one search over the pages, metadata keys and values, tensors and tokens, grouped by
    // kind; choosing a tensor shows it on the Tensors page. The screenshot goes to
    // docs/screenshots/find-everywhere.png.
    void findEverywhereSearchesEveryKind()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        auto* page = qobject_cast<ModelPage*>(window.tabs()->widget(0));
        QVERIFY(page);
        QTest::keyClick(window.windowHandle(), Qt::Key_K, Qt::ControlModifier);
        auto* dialog = window.findChild<FindEverywhereDialog*>();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());

        QAbstractItemModel* found = dialog->results()->model();
        QAbstractItemModelTester tester(found, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy tokens(dialog, &FindEverywhereDialog::tokensSearched);
        dialog->searchField()->setText(QStringLiteral("llama"));
        dialog->search(QStringLiteral("llama"));
        QVERIFY(tokens.count() > 0 || tokens.wait(kJobTimeoutMs));
        const QModelIndex metadata = dialog->group(FindEverywhereDialog::Kind::Metadata);
        QVERIFY(metadata.isValid() && found->rowCount(metadata) > 0);  // general.architecture = llama
        bool architecture = false;
        for (int i = 0; i < found->rowCount(metadata); ++i)
            architecture = architecture || found->index(i, 0, metadata).data().toString().startsWith(QStringLiteral("general.architecture = llama"));
        QVERIFY(architecture);
        QVERIFY(testsupport::saveScreenshot(*dialog, QStringLiteral("find-everywhere")));

        tokens.clear();
        dialog->searchField()->setText(QStringLiteral("attn_q"));
        dialog->search(QStringLiteral("attn_q"));
        QVERIFY(tokens.count() > 0 || tokens.wait(kJobTimeoutMs));
        const QModelIndex tensors = dialog->group(FindEverywhereDialog::Kind::Tensor);
        QVERIFY(tensors.isValid());
        QCOMPARE(found->rowCount(tensors), static_cast<int>(std::count_if(page->model().tensors().begin(), page->model().tensors().end(),
                                                                        [](const auto& t) { return t.name.find("attn_q") != std::string_view::npos; })));
        QVERIFY(!dialog->group(FindEverywhereDialog::Kind::Page).isValid());
        const QString chosen = found->index(0, 0, tensors).data().toString();
        dialog->activate(found->index(0, 0, tensors));
        QCOMPARE(page->pages()->currentIndex(), page->pages()->indexOf(page->tensorBrowser()->parentWidget()));
        const std::string_view shown = page->model().tensors()[static_cast<std::size_t>(page->tensorBrowser()->currentTensor())].name;
        QCOMPARE(QString::fromUtf8(shown.data(), static_cast<qsizetype>(shown.size())), chosen);

        // A page by name (the window active again, as the desktop makes it once the dialog is gone).
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(window.windowHandle(), Qt::Key_K, Qt::ControlModifier);
        FindEverywhereDialog* again = nullptr;
        const auto shownDialog = [&again, &window]() {
            for (FindEverywhereDialog* candidate : window.findChildren<FindEverywhereDialog*>())
                again = candidate->isVisible() ? candidate : again;
            return again != nullptr;
        };
        QTRY_VERIFY(shownDialog());
        again->search(QStringLiteral("tokenizer"));
        const QModelIndex pages = again->group(FindEverywhereDialog::Kind::Page);
        QVERIFY(pages.isValid() && again->results()->model()->rowCount(pages) == 1);
        again->activate(again->results()->model()->index(0, 0, pages));
        QCOMPARE(page->pages()->tabText(page->pages()->currentIndex()).remove(QLatin1Char('&')), QStringLiteral("Tokenizer"));
    }

    // Files opened together, as `gguf-explorer A B C` opens them, each open in a tab of their
    // own, in the order asked for, the last one in front. Each open used to make the one before
    // it stale: only C opened, and A and B were dropped without a word.
    void filesOpenedTogetherEachOpenInATab()
    {
        MainWindow window;
        const QStringList names{QStringLiteral("tiny-llama-F32.gguf"), QStringLiteral("tiny-llama-Q4_K.gguf"), QStringLiteral("tiny-llama-Q8_0.gguf")};
        for (const QString& name : names)
            window.openFile(fixturePath(name));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), names.size(), kJobTimeoutMs);
        QCOMPARE(tabTexts(window), names);
        QVERIFY(modelPagesButErrors(window));
        QCOMPARE(window.tabs()->currentIndex(), 2);
        QCOMPARE(window.windowTitle(), QStringLiteral("tiny-llama-Q8_0.gguf — GGUF Explorer"));
    }

    // A drop of several files opens each of them.
    void droppedFilesEachOpenInATab()
    {
        MainWindow window;
        const QStringList names{QStringLiteral("tiny-llama-Q4_0.gguf"), QStringLiteral("tiny-llama-Q2_K.gguf")};
        QMimeData files;
        files.setUrls({QUrl::fromLocalFile(fixturePath(names[0])), QUrl::fromLocalFile(fixturePath(names[1]))});
        // As a drag over the window delivers it: Qt hands the drop to the widget that took the enter.
        QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &drop);
        QVERIFY(drop.isAccepted());
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), names.size(), kJobTimeoutMs);
        QCOMPARE(tabTexts(window), names);
        QVERIFY(modelPagesButErrors(window));
    }

    // A file that cannot be opened among good ones: its own error tab, naming it, in its place;
    // the others open.
    void aBadFileAmongGoodOnesGetsItsOwnError()
    {
        MainWindow window;
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        window.openFile(fixturePath(QStringLiteral("bad/bad_magic.gguf")));
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 3, kJobTimeoutMs);
        QCOMPARE(tabTexts(window),
                 (QStringList{QStringLiteral("tiny-llama-Q4_K.gguf"), QStringLiteral("Error: bad_magic.gguf"), QStringLiteral("tiny-llama-Q8_0.gguf")}));
        QVERIFY(modelPagesButErrors(window));
        auto* error = qobject_cast<QLabel*>(window.tabs()->widget(1));
        QVERIFY(error);
        QVERIFY2(error->text().contains(QLatin1String("Could not open bad_magic.gguf")) && error->text().contains(QLatin1String("magic")),
                 qPrintable(error->text()));
    }

    // File › Open takes several files at once and opens each.
    void openDialogOpensSeveralFiles()
    {
        QSettings().clear();
        QSettings().setValue(QStringLiteral("lastDirectory"), QFileInfo(fixturePath(QStringLiteral("tiny-llama-F32.gguf"))).absolutePath());
        MainWindow window;
        QAction* open = menuAction(window, QStringLiteral("&Open…"));
        QVERIFY(open);
        bool several = false;
        QTimer poll;
        poll.setInterval(10);
        connect(&poll, &QTimer::timeout, this, [&several, &poll]() {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog || !dialog->isVisible())
                return;
            poll.stop();
            several = dialog->fileMode() == QFileDialog::ExistingFiles;
            auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            if (!several || !name) {
                dialog->reject();
                return;
            }
            name->setText(QStringLiteral("\"tiny-llama-Q4_0.gguf\" \"tiny-llama-Q8_0.gguf\""));
            QMetaObject::invokeMethod(dialog, "accept");  // as the Open button does
        });
        poll.start();
        open->trigger();
        QVERIFY2(several, "File › Open takes one file only");
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 2, kJobTimeoutMs);
        QCOMPARE(tabTexts(window), (QStringList{QStringLiteral("tiny-llama-Q4_0.gguf"), QStringLiteral("tiny-llama-Q8_0.gguf")}));
        QVERIFY(modelPagesButErrors(window));
        QSettings().clear();
    }

    // The documented keys reach their actions through the window, as a person types them:
    // Ctrl+Shift+S (Save As), Ctrl+Tab / Ctrl+PgUp between the tabs; Ctrl+F searches the page in
    // view (it jumped from Metadata to the Tensors page, and did nothing on a comparison).
    void documentedKeysWork()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 2, kJobTimeoutMs);
        QCOMPARE(window.tabs()->currentIndex(), 1);
        QWindow* keys = window.windowHandle();
        QTest::keyClick(keys, Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentIndex(), 0);
        QTest::keyClick(keys, Qt::Key_Tab, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentIndex(), 1);
        QTest::keyClick(keys, Qt::Key_PageDown, Qt::ControlModifier);  // wraps around
        QCOMPARE(window.tabs()->currentIndex(), 0);

        auto* page = qobject_cast<ModelPage*>(window.tabs()->widget(0));
        QVERIFY(page);
        QWidget* metadata = page->pages()->widget(1);
        page->pages()->setCurrentWidget(metadata);
        QTest::keyClick(keys, Qt::Key_F, Qt::ControlModifier);
        QCOMPARE(page->pages()->currentWidget(), metadata);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(metadata->findChild<QLineEdit*>(QStringLiteral("metadataFilter"))));
        page->pages()->setCurrentIndex(0);  // the Overview has no search: the Tensors page's filter
        QTest::keyClick(keys, Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(page->findChild<QLineEdit*>(QStringLiteral("tensorFilter"))));

        const auto f32 = openFixture(QStringLiteral("tiny-llama-F32.gguf"));
        const auto q4 = openFixture(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(f32 && q4);
        ComparePage* compare = window.showComparison({f32, q4}, {});
        QCOMPARE(window.tabs()->currentWidget(), compare);
        auto* inner = compare->findChild<QTabWidget*>(QString(), Qt::FindDirectChildrenOnly);
        QVERIFY(inner);
        inner->setCurrentIndex(1);  // Per layer: the filter is on the Table tab
        QTest::keyClick(keys, Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(compare->findChild<QLineEdit*>(QStringLiteral("filterEdit"))));
        QCOMPARE(inner->currentIndex(), 0);

        window.tabs()->setCurrentWidget(page);
        bool asked = false;
        QTimer poll;
        poll.setInterval(10);
        connect(&poll, &QTimer::timeout, [&asked, &poll]() {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
                poll.stop();
                asked = dialog->acceptMode() == QFileDialog::AcceptSave;
                dialog->reject();
            }
        });
        poll.start();
        QTest::keyClick(keys, Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(asked);
        QSignalSpy finished(compare, &ComparePage::comparisonFinished);
        if (compare->isComputing())
            QVERIFY(finished.wait(kJobTimeoutMs));
    }

    void titleNamesTheFileAndCompareTabsDiffer()
    {
        MainWindow window;
        QCOMPARE(window.windowTitle(), QStringLiteral("GGUF Explorer"));
        window.openFile(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        QCOMPARE(window.windowTitle(), QStringLiteral("tiny-llama-Q4_K.gguf — GGUF Explorer"));
        // The status bar and the headers name the file; the whole path is in the tool tips, and no
        // screenshot shows the folders of the machine it was made on.
        const QString folder = QFileInfo(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"))).absolutePath();
        QCOMPARE(window.statusBar()->currentMessage(), QStringLiteral("Opened tiny-llama-Q4_K.gguf"));
        QVERIFY(window.tabs()->tabToolTip(0).contains(folder));
        QVERIFY(window.tabs()->tabIcon(0).isNull());  // a local file: no remote mark

        const auto f32 = openFixture(QStringLiteral("tiny-llama-F32.gguf"));
        const auto q4 = openFixture(QStringLiteral("tiny-llama-Q4_K.gguf"));
        const auto q8 = openFixture(QStringLiteral("tiny-llama-Q8_0.gguf"));
        QVERIFY(f32 && q4 && q8);
        ComparePage* first = window.showComparison({f32, q4}, {});
        ComparePage* second = window.showComparison({f32, q8}, {});
        const QString firstTitle = window.tabs()->tabText(window.tabs()->indexOf(first));
        const QString secondTitle = window.tabs()->tabText(window.tabs()->indexOf(second));
        QVERIFY2(firstTitle != secondTitle, qPrintable(firstTitle));
        QVERIFY(secondTitle.startsWith(firstTitle));
        QVERIFY(window.tabs()->tabToolTip(window.tabs()->indexOf(second)).contains(QLatin1String("tiny-llama-Q8_0.gguf")));
        QCOMPARE(window.windowTitle(), secondTitle + QStringLiteral(" — GGUF Explorer"));
        auto* header = second->findChild<QLabel*>(QStringLiteral("problemsLabel"));
        QVERIFY(header);
        QVERIFY2(header->text().contains(QLatin1String("tiny-llama-F32.gguf")) && !header->text().contains(folder), qPrintable(header->text()));
        QVERIFY(header->toolTip().contains(folder));

        // The comparison table has the Copy action (Ctrl+C and the context menu).
        bool hasCopy = false;
        for (QAction* action : second->tableView()->actions())
            hasCopy = hasCopy || action->shortcut() == QKeySequence(QKeySequence::Copy);
        QVERIFY(hasCopy);
        QCOMPARE(second->tableView()->contextMenuPolicy(), Qt::ActionsContextMenu);
        QSignalSpy finished(second, &ComparePage::comparisonFinished);
        if (second->isComputing())
            QVERIFY(finished.wait(kJobTimeoutMs));
        if (first->isComputing()) {
            QSignalSpy firstFinished(first, &ComparePage::comparisonFinished);
            QVERIFY(firstFinished.wait(kJobTimeoutMs));
        }
    }
};

QTEST_MAIN(TestGuiMainWindow)
#include "tst_gui_mainwindow.moc"
