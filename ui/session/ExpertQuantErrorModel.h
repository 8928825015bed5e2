#pragma once
// Per-expert quantization error as a table: a row per expert, a column per compared type showing
// one chosen metric (relative RMSE, RMSE, SQNR, ...; with an importance matrix also the weighted
// squared error and its relative form). Cells fill in as results arrive; sort through a
// QSortFilterProxyModel with sortRole() = SortRole.

#include "core/compare/ErrorMetrics.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <optional>
#include <vector>

class ExpertQuantErrorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Metric { RelativeRmse, Rmse, SqnrDb, MaxAbsError, CosineSimilarity, WeightedSquaredError, RelativeWeightedError };
    static constexpr int SortRole = Qt::UserRole;

    explicit ExpertQuantErrorModel(QObject* parent = nullptr);

    // Empty cells for `expertCount` experts × the columns named `columnLabels`.
    void reset(std::uint64_t expertCount, const QStringList& columnLabels);
    void setMetrics(std::uint64_t expert, int column, const gguf::ErrorMetrics& metrics);
    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }
    static QString metricName(Metric metric);
    // The importance-weighted ones (rows of importanceMetricTable()): NaN without importance.
    static bool isWeighted(Metric metric);
    static double metricValue(const gguf::ErrorMetrics& metrics, Metric metric);

    std::uint64_t expertCount() const { return m_expertCount; }
    int typeColumnCount() const { return static_cast<int>(m_labels.size()); }
    const QStringList& columnLabels() const { return m_labels; }
    const std::optional<gguf::ErrorMetrics>& metrics(std::uint64_t expert, int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::uint64_t m_expertCount = 0;
    QStringList m_labels;
    std::vector<std::optional<gguf::ErrorMetrics>> m_cells;  // expert × column
    Metric m_metric = Metric::RelativeRmse;
};
