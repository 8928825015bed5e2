#include "ui/common/SharedColumnsTableView.h"

#include <algorithm>

void SharedColumnsTableView::shareColumnsWith(QAbstractItemView* other)
{
    m_others.append(other);
}

int SharedColumnsTableView::sizeHintForColumn(int column) const
{
    int width = QTableView::sizeHintForColumn(column);
    for (const QPointer<QAbstractItemView>& other : m_others)
        if (other && other->model() && column < other->model()->columnCount())
            width = std::max(width, other->sizeHintForColumn(column));
    return width;
}
