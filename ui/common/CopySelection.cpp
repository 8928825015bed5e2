#include "ui/common/CopySelection.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QStringList>
#include <QTableView>
#include <QTreeView>

#include <algorithm>

namespace {
const char* const kActionName = "copySelectionAction";

QString cellText(const QModelIndex& index)
{
    const QString shown = index.data(Qt::DisplayRole).toString();
    const QString full = index.data(Qt::ToolTipRole).toString();
    // A tooltip that repeats the cell at full length is the better copy; one that explains the
    // cell in other words (or is rich text) is not.
    return full.size() > shown.size() && full.startsWith(shown.left(std::max<qsizetype>(0, shown.size() - 1))) ? full : shown;
}

bool columnHidden(const QAbstractItemView* view, int column)
{
    if (const auto* tree = qobject_cast<const QTreeView*>(view))
        return tree->isColumnHidden(column);
    if (const auto* table = qobject_cast<const QTableView*>(view))
        return table->isColumnHidden(column);
    return false;
}
}  // namespace

QString selectedRowsAsText(const QAbstractItemView* view)
{
    const QItemSelectionModel* selection = view->selectionModel();
    if (!selection || !view->model())
        return {};
    QModelIndexList rows = selection->selectedRows();
    if (rows.isEmpty() && selection->currentIndex().isValid())
        rows << selection->currentIndex().siblingAtColumn(0);
    // View order: by position on screen, which for trees is not row order across parents.
    std::sort(rows.begin(), rows.end(), [view](const QModelIndex& a, const QModelIndex& b) {
        return view->visualRect(a).top() < view->visualRect(b).top();
    });
    QStringList lines;
    for (const QModelIndex& row : rows) {
        QStringList cells;
        const int columns = view->model()->columnCount(row.parent());
        for (int column = 0; column < columns; ++column)
            if (!columnHidden(view, column))
                cells << cellText(row.siblingAtColumn(column));
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n'));
}

QAction* installCopyAction(QAbstractItemView* view)
{
    if (auto* existing = view->findChild<QAction*>(QLatin1String(kActionName), Qt::FindDirectChildrenOnly))
        return existing;
    auto* copy = new QAction(QObject::tr("Copy"), view);
    copy->setObjectName(QLatin1String(kActionName));
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    QObject::connect(copy, &QAction::triggered, view, [view] {
        const QString text = selectedRowsAsText(view);
        if (!text.isEmpty())
            QApplication::clipboard()->setText(text);
    });
    view->addAction(copy);
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    return copy;
}
