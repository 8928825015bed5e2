#pragma once
// The README's screenshots, taken by the widget suites (written beside the test binary, in
// screenshots/, and copied to docs/screenshots). A picture is taken once every event already
// posted has run (layouts, queued replots, a tab's first paint), not after a stretch of wall
// time, and it must show something: the widget's size, and more colours than a blank or
// half-painted window has (a page with text and a chart has hundreds; an unpainted one, one or
// two). A theme's picture may also be checked for its brightness.

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QSet>
#include <QString>
#include <QWidget>
#include <QtGlobal>


namespace testsupport {

enum class Brightness { Any, Dark, Light };

// The folder the screenshots go to, made if missing.
inline QString screenshotFolder()
{
    const QString folder = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
    QDir().mkpath(folder);
    return folder;
}

// Saves `widget` as screenshots/<name>.png; false (with the reason as a warning) when the
// picture is blank, the wrong size, not as bright as asked, or cannot be written.
inline bool saveScreenshot(QWidget& widget, const QString& name, Brightness brightness = Brightness::Any)
{
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    const QImage picture = widget.grab().toImage();
    const QSize expected = widget.size() * widget.devicePixelRatio();
    if (picture.size() != expected) {
        qWarning("%s: %dx%d, not the widget's %dx%d", qPrintable(name), picture.width(), picture.height(), expected.width(),
                 expected.height());
        return false;
    }
    constexpr int kEnoughColours = 16;
    QSet<QRgb> colours;
    qint64 lightness = 0;
    for (int y = 0; y < picture.height(); ++y)
        for (int x = 0; x < picture.width(); ++x) {
            const QRgb pixel = picture.pixel(x, y);
            if (colours.size() < kEnoughColours)
                colours.insert(pixel);
            lightness += qGray(pixel);
        }
    if (colours.size() < kEnoughColours) {
        qWarning("%s: %lld colours, a blank or unpainted picture", qPrintable(name), static_cast<long long>(colours.size()));
        return false;
    }
    const qint64 mean = picture.isNull() ? 0 : lightness / (qint64(picture.width()) * picture.height());
    if ((brightness == Brightness::Dark && mean >= 128) || (brightness == Brightness::Light && mean < 128)) {
        qWarning("%s: mean lightness %lld, not a %s picture", qPrintable(name), static_cast<long long>(mean),
                 brightness == Brightness::Dark ? "dark" : "light");
        return false;
    }
    if (!picture.save(screenshotFolder() + QLatin1Char('/') + name + QStringLiteral(".png"))) {
        qWarning("%s: could not be written", qPrintable(name));
        return false;
    }
    return true;
}

}  // namespace testsupport
