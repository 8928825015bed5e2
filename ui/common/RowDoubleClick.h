#pragma once
// Double-click on a row of an item view, robust to the view moving under the cursor between the
// two clicks. The first click selects a row, which may start work whose progress bar shifts the
// view; QAbstractItemView then sees the second click on the row above, takes it for a new press
// and never reports the double-click. Here the row is the one under the first press, and a press
// that is the second half of a double-click never moves the selection.

#include <QModelIndex>

#include <functional>

class QAbstractItemView;

// Calls `opened` with the (column 0) index of the row double-clicked in `view`, after making it
// the current, selected row. Replaces QAbstractItemView::doubleClicked for that view.
void onRowDoubleClicked(QAbstractItemView* view, std::function<void(const QModelIndex& row)> opened);
