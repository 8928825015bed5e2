#pragma once
// Some probes of a scan (core/sensitivity/ScanFile.h) as a table, in the order given: a row per
// probe with its group's tensor, mean KLD, trimmed mean, top-1 agreement and Δp. The Sensitivity
// view shows a type's most and least sensitive groups through two of these.

#include "core/sensitivity/SensitivityScan.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

class ScanProbeListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Group, MeanKld, TrimmedKld, SameTop, DeltaTop, ColumnCount };

    explicit ScanProbeListModel(QObject* parent = nullptr);

    // `probes` index record->probes; each must have its figures.
    void setProbes(std::shared_ptr<const gguf::ScanRecord> record, std::vector<std::size_t> probes);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gguf::ScanRecord> m_record;
    std::vector<std::size_t> m_probes;
};
