#include "ui/common/PlaceholderText.h"

#include <QEvent>
#include <QPainter>
#include <QPushButton>
#include <QTextLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

PlaceholderText::PlaceholderText(QPushButton* button)
    : QWidget(button), m_button(button), m_plot(button->parentWidget()), m_plotMinimumHeight(m_plot ? m_plot->minimumHeight() : 0)
{
    setObjectName(button->objectName() + QStringLiteral("Text"));
    setAttribute(Qt::WA_TransparentForMouseEvents);  // clicks are the button's
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    auto* layout = new QVBoxLayout(button);
    layout->setContentsMargins(margins());
    layout->addWidget(this);
    button->installEventFilter(this);
    if (m_plot)
        m_plot->installEventFilter(this);
}

QMargins PlaceholderText::margins()
{
    return {12, 12, 12, 12};
}

void PlaceholderText::setText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    updateGeometry();
    update();
    keepPlotRoom();
}

int PlaceholderText::layOut(QTextLayout& layout, int width) const
{
    QString text = m_text;
    text.replace(QLatin1Char('\n'), QChar::LineSeparator);
    layout.setText(text);
    layout.setFont(font());
    QTextOption option(Qt::AlignHCenter);
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    const double leading = fontMetrics().leading();
    double height = 0;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(std::max(1, width));
        if (height > 0)
            height += leading;
        line.setPosition(QPointF(0, height));
        height += line.height();
    }
    layout.endLayout();
    return static_cast<int>(std::ceil(height));
}

int PlaceholderText::widestLine(int width) const
{
    QTextLayout layout;
    layOut(layout, width);
    double widest = 0;
    for (int i = 0; i < layout.lineCount(); ++i)
        widest = std::max(widest, layout.lineAt(i).naturalTextWidth());
    return static_cast<int>(std::ceil(widest));
}

int PlaceholderText::heightForWidth(int width) const
{
    QTextLayout layout;
    return layOut(layout, width);
}

QSize PlaceholderText::sizeHint() const
{
    const int width = fontMetrics().horizontalAdvance(m_text.section(QLatin1Char('\n'), 0, 0));
    return {width, heightForWidth(width)};
}

// As small as a line: the button sets the size, and the plot's minimum height the room.
QSize PlaceholderText::minimumSizeHint() const
{
    return {fontMetrics().averageCharWidth(), fontMetrics().height()};
}

void PlaceholderText::paintEvent(QPaintEvent*)
{
    QTextLayout layout;
    const int height = layOut(layout, width());
    QPainter painter(this);
    painter.setPen(palette().color(QPalette::WindowText));
    // Centred vertically too; a text taller than the room starts at the top.
    layout.draw(&painter, QPointF(0, std::max(0, (this->height() - height) / 2)));
}

bool PlaceholderText::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    // ShowToParent, not Show: a placeholder shown while its tab is hidden gets Show only when the
    // tab comes up, after the layout has already given the plot its height.
    if ((watched == m_button && (type == QEvent::ShowToParent || type == QEvent::HideToParent)) || (watched == m_plot && type == QEvent::Resize))
        keepPlotRoom();
    return QWidget::eventFilter(watched, event);
}

void PlaceholderText::keepPlotRoom()
{
    if (!m_plot)
        return;
    const QMargins around = margins();
    const int needed = m_button->isVisibleTo(m_plot) && !m_text.isEmpty()
                         ? heightForWidth(m_plot->width() - around.left() - around.right()) + around.top() + around.bottom()
                         : 0;
    const int minimum = std::max(m_plotMinimumHeight, needed);
    if (m_plot->minimumHeight() != minimum)
        m_plot->setMinimumHeight(minimum);
}
