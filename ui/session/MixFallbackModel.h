#pragma once
// The tensors of a mix that fell back (core/recipe/MixSummary.h) as a table: a row per tensor,
// with its row length, the type llama-quantize chose, the one it wrote instead and the stored one.

#include "core/recipe/MixSummary.h"

#include <QAbstractTableModel>
#include <vector>

class MixFallbackModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Tensor, RowLength, Chosen, FellBackTo, Stored, ColumnCount };

    explicit MixFallbackModel(QObject* parent = nullptr);

    void setFallbacks(std::vector<gguf::MixFallback> fallbacks);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<gguf::MixFallback> m_fallbacks;
};
