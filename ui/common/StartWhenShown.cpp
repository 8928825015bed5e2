#include "ui/common/StartWhenShown.h"

#include <QEvent>
#include <QWidget>

StartWhenShown::StartWhenShown(QWidget* view, std::function<void()> start) : QObject(view), m_view(view), m_start(std::move(start))
{
    view->installEventFilter(this);
}

void StartWhenShown::request()
{
    m_pending = true;
    startIfShown();
}

bool StartWhenShown::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view && event->type() == QEvent::Show)
        startIfShown();
    return QObject::eventFilter(watched, event);
}

void StartWhenShown::startIfShown()
{
    if (!m_pending || !m_view->isVisible())
        return;
    m_pending = false;
    m_start();
}
