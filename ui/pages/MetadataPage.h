#pragma once
// The metadata of one model as an expandable tree (MetadataTreeModel) with a filter box over the
// keys. The filter waits for a pause in typing (300 ms) and keeps the children of matching keys.
// Long arrays load a page at a time as their last loaded element scrolls into view (QTreeView
// itself only does that for the last top-level row), and "Go to index" jumps to any element.

#include "gguf/Model.h"

#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QSortFilterProxyModel;
class QTimer;
class QTreeView;
class MetadataTreeModel;

class MetadataPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kFilterDelayMs = 300;

    explicit MetadataPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    MetadataTreeModel* treeModel() const { return m_tree; }
    QSortFilterProxyModel* filterModel() const { return m_proxy; }
    QTreeView* view() const { return m_view; }

    // Loads, expands to, selects and scrolls to element `element` of the array at `array` (a
    // source-model index, column 0). False when that is not an array or the element is past its
    // end, or when the filter hides the array.
    bool jumpToElement(const QModelIndex& array, int element);

signals:
    void filterApplied(const QString& text);

private:
    void applyFilter();
    void updateKeyCount();
    // The array the jump box works on: the current row when it is an array, else the array that
    // holds the current element. A source-model index; invalid when neither.
    QModelIndex currentArray() const;
    void updateJumpBox();
    // Fetches the next page of any expanded array whose last loaded element is on screen.
    void fetchVisibleTails();

    MetadataTreeModel* m_tree;
    QSortFilterProxyModel* m_proxy;
    QTreeView* m_view;
    QLineEdit* m_filter;
    QTimer* m_filterDelay;
    QTimer* m_tailCheck;
    QLabel* m_count;
    QSpinBox* m_jumpIndex;
    QPushButton* m_jumpButton;
    int m_keyCount = 0;
};
