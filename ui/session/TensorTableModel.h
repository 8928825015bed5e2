#pragma once
// The tensor index as a table: name, type, shape, bits per weight, size, offset. Sorting and
// filtering go through a QSortFilterProxyModel; Qt::UserRole gives sortable raw values.

#include "core/gguf/Model.h"

#include <QAbstractTableModel>
#include <memory>

class TensorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Type, Shape, BitsPerWeight, Size, Offset, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit TensorTableModel(QObject* parent = nullptr);
    void setModel(std::shared_ptr<const gguf::Model> model);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gguf::Model> m_model;
};
