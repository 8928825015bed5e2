#pragma once
// Tensors grouped by layer: one parent per `blk.N` (in numeric order) and one for everything
// else (embeddings, output, norms), with the tensors as children. Same columns as the table.

#include "core/gguf/Model.h"
#include "ui/session/TensorTableModel.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

class TensorTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    static constexpr int TensorIndexRole = Qt::UserRole + 1;  // row in Model::tensors(), -1 for groups
    static constexpr int GroupNameRole = Qt::UserRole + 2;    // a group's bare name ("blk.0"), nothing for tensors

    explicit TensorTreeModel(QObject* parent = nullptr);
    void setModel(std::shared_ptr<const gguf::Model> model);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // The row of tensor `tensorIndex` (index into Model::tensors()); invalid when there is none.
    QModelIndex indexOfTensor(int tensorIndex, int column = 0) const;

private:
    struct Group {
        QString name;
        std::vector<int> tensors;  // indices into Model::tensors()
    };
    // Internal ids: 0 marks a group row; group g's children carry g + 1.
    std::vector<Group> m_groups;
    std::shared_ptr<const gguf::Model> m_model;
    TensorTableModel m_columns;  // formats a tensor's cells the same way as the table
};
