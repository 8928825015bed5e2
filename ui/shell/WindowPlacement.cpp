#include "ui/shell/WindowPlacement.h"

#include <QEvent>
#include <QGuiApplication>
#include <QScreen>
#include <QStyle>
#include <QTimer>
#include <QWidget>
#include <algorithm>

namespace {
constexpr char kRefitName[] = "refitWhenShown";

// Fits a window again once it is on screen: before that its frame is a guess (a title bar), and
// a desktop's side borders (1 px each on the offscreen platform) made a window sized to the
// screen's width 2 px wider than it.
class RefitWhenShown : public QObject {
public:
    explicit RefitWhenShown(QWidget* window) : QObject(window)
    {
        setObjectName(QLatin1String(kRefitName));
        window->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Show) {
            auto* window = static_cast<QWidget*>(watched);
            window->removeEventFilter(this);
            deleteLater();
            QTimer::singleShot(0, window, [window]() { fitWindowIntoScreen(window); });
        }
        return false;
    }
};
}  // namespace

QRect clampedToScreen(const QRect& frame, const QRect& available)
{
    if (available.isEmpty() || available.contains(frame))
        return frame;
    QRect clamped = frame;
    clamped.setWidth(std::min(frame.width(), available.width()));
    clamped.setHeight(std::min(frame.height(), available.height()));
    clamped.moveLeft(std::clamp(clamped.left(), available.left(), available.right() - clamped.width() + 1));
    clamped.moveTop(std::clamp(clamped.top(), available.top(), available.bottom() - clamped.height() + 1));
    return clamped;
}

void fitWindowIntoScreen(QWidget* window, QRect available)
{
    if (available.isEmpty()) {
        const QScreen* screen = window->isVisible() ? QGuiApplication::screenAt(window->frameGeometry().center()) : nullptr;
        if (!screen)
            screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
        if (!screen)
            return;
        available = screen->availableGeometry();
    }
    QRect frame = window->frameGeometry();
    QMargins margins(window->geometry().left() - frame.left(), window->geometry().top() - frame.top(),
                     frame.right() - window->geometry().right(), frame.bottom() - window->geometry().bottom());
    if (margins.isNull() && !window->isVisible()) {  // not decorated yet: room for a title bar
        margins.setTop(window->style()->pixelMetric(QStyle::PM_TitleBarHeight, nullptr, window));
        frame = window->geometry().marginsAdded(margins);
        if (!window->findChild<QObject*>(QLatin1String(kRefitName), Qt::FindDirectChildrenOnly))
            new RefitWhenShown(window);
    }
    const QRect fitted = clampedToScreen(frame, available);
    if (fitted == frame)
        return;
    window->setGeometry(fitted.marginsRemoved(margins));
}
