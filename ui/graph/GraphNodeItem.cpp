#include "ui/graph/GraphNodeItem.h"

#include <QCursor>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>

GraphNodeItem::GraphNodeItem(int node, QSizeF size, QString label, QString detail, std::function<void(int node)> onClick)
    : m_node(node), m_size(size), m_label(std::move(label)), m_detail(std::move(detail)), m_onClick(std::move(onClick))
{
    setAcceptedMouseButtons(Qt::LeftButton);
    setCursor(QCursor(Qt::PointingHandCursor));
}

void GraphNodeItem::setColours(QColor fill, QColor border, QColor text)
{
    m_fill = fill;
    m_border = border;
    m_text = text;
    update();
}

void GraphNodeItem::setFigureText(const QString& text)
{
    m_figure = text;
    update();
}

QRectF GraphNodeItem::boundingRect() const
{
    return QRectF(QPointF(0, 0), m_size).adjusted(-1, -1, 1, 1);
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const QRectF box(QPointF(0, 0), m_size);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(m_border, 1.2));
    painter->setBrush(m_fill);
    painter->drawRoundedRect(box, 6, 6);
    painter->setPen(m_text);
    QFont font = painter->font();
    font.setPointSizeF(8.5);
    font.setBold(true);
    painter->setFont(font);
    const QString second = m_detail.isEmpty() ? m_figure : m_figure.isEmpty() ? m_detail : m_detail + QStringLiteral(" · ") + m_figure;
    if (second.isEmpty()) {
        painter->drawText(box.adjusted(4, 0, -4, 0), Qt::AlignCenter, m_label);
        return;
    }
    painter->drawText(box.adjusted(4, 2, -4, -box.height() / 2 - 1), Qt::AlignHCenter | Qt::AlignBottom, m_label);
    font.setBold(false);
    font.setPointSizeF(7.5);
    painter->setFont(font);
    const QRectF lower = box.adjusted(4, box.height() / 2 + 1, -4, -2);
    painter->drawText(lower, Qt::AlignHCenter | Qt::AlignTop, painter->fontMetrics().elidedText(second, Qt::ElideRight, static_cast<int>(lower.width())));
}

void GraphNodeItem::contextMenuEvent(QGraphicsSceneContextMenuEvent* event)
{
    if (!m_onMenu) {
        event->ignore();
        return;
    }
    m_onMenu(m_node, event->screenPos());
    event->accept();
}

void GraphNodeItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    event->accept();  // the release comes here, and the view does not start a hand drag
}

void GraphNodeItem::mouseReleaseEvent(QGraphicsSceneMouseEvent* event)
{
    if (boundingRect().contains(event->pos()) && m_onClick)
        m_onClick(m_node);
}
