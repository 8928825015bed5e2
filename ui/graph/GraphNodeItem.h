#pragma once
// One node of the Graph page: a rounded box filled with the colour of its figure, its label (and
// for a collapsed block its parts), and the node's tensors with their types and shapes as the
// tooltip. A click is handed to the page.

#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <functional>

class GraphNodeItem : public QGraphicsItem {
public:
    GraphNodeItem(int node, QSizeF size, QString label, QString detail, std::function<void(int node)> onClick);

    int node() const { return m_node; }
    QString label() const { return m_label; }
    QColor fill() const { return m_fill; }
    void setColours(QColor fill, QColor border, QColor text);
    void setFigureText(const QString& text);  // a second line: the node's figure; empty for none
    // A right click (or the menu key) asks for the node's menu at that screen position.
    void setMenuHandler(std::function<void(int node, QPoint screenPos)> onMenu) { m_onMenu = std::move(onMenu); }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

private:
    int m_node;
    QSizeF m_size;
    QString m_label;
    QString m_detail;
    QString m_figure;
    QColor m_fill, m_border, m_text;
    std::function<void(int)> m_onClick;
    std::function<void(int, QPoint)> m_onMenu;
};
