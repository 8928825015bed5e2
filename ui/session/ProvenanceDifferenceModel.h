#pragma once
// The first tensor where a file differs from what llama-quantize makes of its source
// (core/recipe/ProvenanceCheck.h) as a one-row table: the tensor, the kind of difference, both
// types, and for differing data the first differing byte and its row. No row when identical.

#include "core/recipe/ProvenanceCheck.h"

#include <QAbstractTableModel>
#include <optional>

class ProvenanceDifferenceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Tensor, Kind, FileType, ExpectedType, FirstByte, Row, ColumnCount };

    explicit ProvenanceDifferenceModel(QObject* parent = nullptr);

    void setDifference(std::optional<gguf::ProvenanceDifference> difference);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::optional<gguf::ProvenanceDifference> m_difference;
};
