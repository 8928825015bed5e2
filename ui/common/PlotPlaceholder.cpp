#include "ui/common/PlotPlaceholder.h"

#include "ui/common/PlaceholderText.h"

#include <QEvent>
#include <QPushButton>
#include <qcustomplot.h>

PlotPlaceholder::PlotPlaceholder(QCustomPlot* plot) : QObject(plot), m_plot(plot), m_button(new QPushButton(plot))
{
    m_button->setObjectName(plot->objectName() + QStringLiteral("Placeholder"));
    m_button->setFlat(true);
    m_button->setAutoFillBackground(true);
    m_text = new PlaceholderText(m_button);
    m_button->hide();
    plot->installEventFilter(this);
    m_button->installEventFilter(this);
    connect(m_button, &QPushButton::clicked, this, [this]() {
        if (m_retry) {
            const std::function<void()> retry = m_retry;
            retry();
        }
    });
}

void PlotPlaceholder::show(const QString& text, std::function<void()> retry)
{
    m_retry = std::move(retry);
    m_text->setText(text);
    m_button->setCursor(m_retry ? Qt::PointingHandCursor : Qt::ArrowCursor);
    m_button->setGeometry(m_plot->rect());
    m_button->show();
    m_button->raise();
}

void PlotPlaceholder::hide()
{
    m_retry = {};
    m_button->hide();
}

QString PlotPlaceholder::text() const
{
    return m_button->isVisibleTo(m_plot) ? m_text->text() : QString();
}

bool PlotPlaceholder::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Resize)
        m_button->setGeometry(m_plot->rect());
    // The wheel would reach the plot underneath and zoom what is not there.
    if (watched == m_button && event->type() == QEvent::Wheel)
        return true;
    return QObject::eventFilter(watched, event);
}
