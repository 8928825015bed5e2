#pragma once
// The metadata of one model as an expandable tree (MetadataTreeModel) with a filter box over the
// keys. The filter waits for a pause in typing (300 ms) and keeps the children of matching keys.

#include "Model.h"

#include <QWidget>
#include <memory>

class QLineEdit;
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

signals:
    void filterApplied(const QString& text);

private:
    void applyFilter();

    MetadataTreeModel* m_tree;
    QSortFilterProxyModel* m_proxy;
    QTreeView* m_view;
    QLineEdit* m_filter;
    QTimer* m_filterDelay;
};
