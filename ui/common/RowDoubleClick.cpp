#include "ui/common/RowDoubleClick.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPersistentModelIndex>
#include <QStyleHints>

namespace {

class RowDoubleClickFilter : public QObject {
public:
    RowDoubleClickFilter(QAbstractItemView* view, std::function<void(const QModelIndex&)> opened)
        : QObject(view), m_view(view), m_opened(std::move(opened))
    {
        m_sinceFirstPress.invalidate();
    }

    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() != QEvent::MouseButtonPress && event->type() != QEvent::MouseButtonDblClick)
            return false;
        const auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() != Qt::LeftButton)
            return false;
        // Two presses at one spot on the screen within the interval; the row under that spot may
        // have changed in between.
        const bool withinDoubleClick = m_sinceFirstPress.isValid()
                                    && m_sinceFirstPress.elapsed() <= QGuiApplication::styleHints()->mouseDoubleClickInterval()
                                    && (mouse->globalPosition().toPoint() - m_firstPosition).manhattanLength() <= QApplication::startDragDistance();
        if (event->type() == QEvent::MouseButtonPress) {
            if (withinDoubleClick && m_firstPress.isValid())
                return true;  // the second half of a double-click: the row is the first one's
            m_firstPress = m_view->indexAt(mouse->position().toPoint());
            m_firstPosition = mouse->globalPosition().toPoint();
            m_sinceFirstPress.start();
            return false;
        }
        // Double-click: open the row of the first press (or the one under the cursor when that
        // press was not seen, e.g. it came before the view was shown).
        const QModelIndex row = withinDoubleClick && m_firstPress.isValid() ? QModelIndex(m_firstPress) : m_view->indexAt(mouse->position().toPoint());
        m_sinceFirstPress.invalidate();
        m_firstPress = QPersistentModelIndex();
        if (!row.isValid())
            return true;
        m_view->setCurrentIndex(row);
        m_opened(row.siblingAtColumn(0));
        return true;
    }

private:
    QAbstractItemView* m_view;
    std::function<void(const QModelIndex&)> m_opened;
    QPersistentModelIndex m_firstPress;
    QPoint m_firstPosition;
    QElapsedTimer m_sinceFirstPress;
};

}  // namespace

void onRowDoubleClicked(QAbstractItemView* view, std::function<void(const QModelIndex& row)> opened)
{
    view->viewport()->installEventFilter(new RowDoubleClickFilter(view, std::move(opened)));
}
