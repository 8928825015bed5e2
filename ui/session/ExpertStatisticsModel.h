#pragma once
// Per-expert statistics of one expert tensor as a table: a row per expert, filled in as each
// expert's result arrives (rows without a result yet show an ellipsis). Sort through a
// QSortFilterProxyModel with sortRole() = SortRole, which holds the raw numbers.

#include "core/experts/ExpertAnalysis.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

class ExpertStatisticsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ExpertColumn, MeanColumn, StdColumn, RmsColumn, MaxAbsColumn, SparsityColumn, NanColumn, InfColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit ExpertStatisticsModel(QObject* parent = nullptr);

    // Empty rows for experts 0 .. expertCount-1.
    void reset(std::uint64_t expertCount);
    void setStatistics(const gguf::ExpertStatistics& statistics);
    const std::optional<gguf::ExpertStatistics>& statistics(std::uint64_t expert) const;
    std::uint64_t expertCount() const { return m_rows.size(); }
    std::uint64_t readyCount() const { return m_readyCount; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<std::optional<gguf::ExpertStatistics>> m_rows;
    std::uint64_t m_readyCount = 0;
};
