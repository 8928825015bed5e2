// The main window's frame: a restored geometry pulled back onto the screen, the window title
// naming the file of the current tab, distinct titles for Compare tabs, and the Copy action.

#include "Fixtures.h"
#include "ui/compare/ComparePage.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/WindowPlacement.h"
#include "ui/common/FileDialogs.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QTreeView>
#include <QLabel>
#include <QStatusBar>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

using namespace testsupport;

namespace {
constexpr int kJobTimeoutMs = 120000;

std::shared_ptr<const gguf::Model> openFixture(const QString& name)
{
    auto model = gguf::Model::open(fixturePath(name).toStdString());
    return model ? model.value() : nullptr;
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
