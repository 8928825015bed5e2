#pragma once
// The tensor index as a sortable table or a tree grouped by layer, with a debounced filter box
// (substring or regular expression) and a count of the tensors it lets through; group rows count
// what the filter shows. Text that is not a valid expression is matched literally, and the count
// says so. Emits the selected tensor.

#include "core/gguf/Model.h"

#include <QWidget>
#include <memory>

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
    void setGroupedByLayer(bool grouped);
    QTableView* tableView() const { return m_table; }
    QTreeView* treeView() const { return m_tree; }
    QSortFilterProxyModel* tableProxy() const { return m_tableProxy; }
    QSortFilterProxyModel* treeProxy() const { return m_treeProxy; }
    void selectTensor(int tensorIndex);
    void selectAdjacent(int step);  // next (+1) or previous (-1) visible tensor
    QLabel* matchCount() const { return m_matchCount; }
    // Wide enough for the Name, Type and Shape columns whole (the page's splitter starts there).
    QSize sizeHint() const override;

signals:
    void tensorSelected(int tensorIndex);  // index into Model::tensors(), -1 for none

private:
    void applyFilter();
    void emitCurrent(const QModelIndex& proxyIndex, bool fromTree);
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
};
