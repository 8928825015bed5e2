// The windows on a real 2×-scaled 1920×1080 screen, not a rectangle handed to the placement code:
// the offscreen platform takes a screen from a configuration file (1920×1080 at 96 dpi) and
// honours QT_SCALE_FACTOR=2 (measured: the screen then reads 960×540 with a device pixel ratio of
// 2), so the main window with a model open and the dialogs must fit 960×540 by themselves, title
// bar and buttons included.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "ui/compare/CompareDialog.h"
#include "ui/shell/AboutDialog.h"
#include "ui/shell/ConvertDialog.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QFile>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace testsupport;

namespace {
// The shown window with the frame the platform gives it (on the offscreen platform 1 px on every
// side; a desktop's includes its title bar) inside the screen's available area.
QString outside(const QWidget& window)
{
    const QRect screen = window.screen()->availableGeometry();
    const QRect frame = window.frameGeometry();
    if (screen.contains(frame))
        return {};
    return QStringLiteral("%1 %2x%3 at %4,%5 (with its frame) is outside the %6x%7 screen")
        .arg(window.metaObject()->className())
        .arg(frame.width()).arg(frame.height()).arg(frame.x()).arg(frame.y())
        .arg(screen.width()).arg(screen.height());
}

// Every button of `dialog` lies inside it.
bool buttonsInside(const QWidget& dialog)
{
    for (const QPushButton* button : dialog.findChildren<QPushButton*>())
        if (button->isVisible() && !dialog.rect().contains(QRect(button->mapTo(&dialog, QPoint(0, 0)), button->size())))
            return false;
    return true;
}
}  // namespace

class TestGuiScaledScreen : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // the settings a window restores are the test's
    }

    void screenIsScaled()
    {
        QScreen* screen = QGuiApplication::primaryScreen();
        QCOMPARE(screen->devicePixelRatio(), 2.0);
        QCOMPARE(screen->geometry().size(), QSize(960, 540));
    }

    void mainWindowFits()
    {
        QSettings().clear();
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kHangGuardMs);
        QVERIFY2(outside(window).isEmpty(), qPrintable(outside(window)));
    }

    void dialogsFit()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(model);
        ConvertDialog convert(model);
        AboutDialog about;
        CompareDialog compare(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf")));
        for (QDialog* dialog : std::initializer_list<QDialog*>{&convert, &about, &compare}) {
            dialog->show();
            QVERIFY(QTest::qWaitForWindowExposed(dialog));
            QVERIFY2(outside(*dialog).isEmpty(), qPrintable(outside(*dialog)));
            QVERIFY2(buttonsInside(*dialog), dialog->metaObject()->className());
            dialog->hide();
        }
    }
};

// The screen is chosen before the application exists: a configuration file for the offscreen
// platform and the scale factor, as a user on a 4K-class laptop would set it.
int main(int argc, char** argv)
{
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile file(config);
    if (!dir.isValid() || !file.open(QIODevice::WriteOnly)
        || file.write(R"({"screens":[{"name":"laptop","x":0,"y":0,"width":1920,"height":1080,"logicalDpi":96,"logicalBase":96,"dpr":1}]})") <= 0)
        return 1;
    file.close();
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + config.toUtf8());
    qputenv("QT_SCALE_FACTOR", "2");
    QApplication app(argc, argv);
    TestGuiScaledScreen test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_gui_scaled_screen.moc"
