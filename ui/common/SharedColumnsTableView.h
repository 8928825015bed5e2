#pragma once
// A table view whose columns, sized to their contents, also fit the contents of other views
// showing the same columns with the same widths (the Compare table's totals rows under it). A
// ResizeToContents header asks its own view how wide each column must be; another view that
// only copies the widths is cut to this one's contents, and to the rows a filter leaves.

#include <QPointer>
#include <QTableView>

class SharedColumnsTableView : public QTableView {
    Q_OBJECT
public:
    using QTableView::QTableView;

    // `other` shows this view's columns: its contents count in their widths from now on
    // (call resizeColumnsToContents() when they change).
    void shareColumnsWith(QAbstractItemView* other);

protected:
    int sizeHintForColumn(int column) const override;

private:
    QList<QPointer<QAbstractItemView>> m_others;
};
