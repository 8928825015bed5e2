#pragma once
// The tensor index as a sortable table or a tree grouped by layer, with a debounced filter box
// (substring or regular expression) and a count of the tensors it lets through; group rows count
// what the filter shows. Text that is not a valid expression is matched literally, and the count
// says so. Emits the selected tensor. Both views highlight the one tensor shown (or nothing,
// when the filter hides it): a filter never changes which tensor is shown.

#include "core/gguf/Model.h"

#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTimer;
class QTreeView;
class QToolButton;
class TensorTableModel;
class TensorTreeModel;

class TensorBrowser : public QWidget {
    Q_OBJECT
public:
    explicit TensorBrowser(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    void setFilterText(const QString& text);  // as if typed, debounce included
    void clearFilter();                       // at once, no debounce
    void setGroupedByLayer(bool grouped);
    QTableView* tableView() const { return m_table; }
    QTreeView* treeView() const { return m_tree; }
    QSortFilterProxyModel* tableProxy() const { return m_tableProxy; }
    QSortFilterProxyModel* treeProxy() const { return m_treeProxy; }
    void selectTensor(int tensorIndex);  // in the view that is showing; nothing when the filter hides it
    void selectAdjacent(int step);       // next (+1) or previous (-1) tensor the showing view lists
    int currentTensor() const { return m_current; }
    QLabel* matchCount() const { return m_matchCount; }
    // Wide enough for the Name, Type, Shape and Bits/weight columns whole (the page's splitter
    // starts there).
    QSize sizeHint() const override;

signals:
    void tensorSelected(int tensorIndex);  // index into Model::tensors(), -1 for none

private:
    void applyFilter();
    void onCurrentRowChanged(const QModelIndex& proxyIndex, bool fromTree);
    void showTensor(int tensorIndex);
    void highlightCurrent();  // both views onto m_current, without emitting
    std::vector<QModelIndex> treeTensorRows() const;  // the tree's tensor rows in display order
    void updateMatchCount();
    void fitColumns();

    std::shared_ptr<const gguf::Model> m_model;
    TensorTableModel* m_tableModel;
    TensorTreeModel* m_treeModel;
    QSortFilterProxyModel* m_tableProxy;
    QSortFilterProxyModel* m_treeProxy;
    QLineEdit* m_filter;
    QLabel* m_matchCount;
    QString m_patternError;  // why the filter text is not a regular expression; empty when it is
    QTimer* m_debounce;
    QToolButton* m_groupToggle;
    QStackedWidget* m_stack;
    QTableView* m_table;
    QTreeView* m_tree;
    int m_current = -1;        // the tensor shown, index into Model::tensors()
    bool m_syncing = false;    // moving a view's highlight ourselves: not the user's choice
};
