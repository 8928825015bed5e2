#pragma once
// One open model: a summary header, its metadata and its tensor index with a filter box.

#include "Model.h"

#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class MetadataTableModel;
class TensorTableModel;
class TensorViewPage;

class ModelPage : public QWidget {
    Q_OBJECT
public:
    explicit ModelPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);
    const gguf::Model& model() const { return *m_model; }
    TensorViewPage* tensorPage() const { return m_tensorPage; }

signals:
    void statusMessage(bool succeeded, const QString& message);

private:
    QWidget* createSummary();
    void applyFilter();

    std::shared_ptr<const gguf::Model> m_model;
    MetadataTableModel* m_metadata;
    TensorTableModel* m_tensors;
    QSortFilterProxyModel* m_tensorProxy;
    QLineEdit* m_filter;
    QTimer* m_filterDebounce;
    TensorViewPage* m_tensorPage = nullptr;
};
