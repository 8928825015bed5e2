#pragma once
// A "Copy" action (Ctrl+C and the context menu) for a table or tree view: the selected rows as
// tab-separated text, one line per row, in view order. Cells that elide or abbreviate show the
// full text in their tooltip, so the tooltip is copied when it is longer than what is displayed.

class QAbstractItemView;
class QAction;
class QString;

// Adds the action to `view` (once) and returns it.
QAction* installCopyAction(QAbstractItemView* view);

// What the action puts on the clipboard for the current selection of `view`.
QString selectedRowsAsText(const QAbstractItemView* view);
