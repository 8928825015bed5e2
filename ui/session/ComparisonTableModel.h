#pragma once
// The whole-model comparison as a table: one row per reference tensor, the tensor's name, layer,
// kind and type, then one column per compared file or simulated type showing the chosen metric.
// Cells that cannot be computed say why (missing, shape mismatch, undecodable, no imatrix entry); cells not yet
// computed show an ellipsis, or a dash once the run stopped without them. SortRole gives plain numbers so the proxy sorts numerically. A cell
// whose stored type is neither its column's nor the reference's (a Q6_K tensor in a Q4_K_M file,
// not an f32 norm kept as it was) says so in its tooltip and gives that type through
// CellTypeRole, which the page draws as a swatch.

#include "core/compare/ModelComparison.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

class ComparisonTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;
    // A metric cell's stored type id when it differs from its column's type; null otherwise.
    static constexpr int CellTypeRole = Qt::UserRole + 2;
    enum FixedColumn { TensorColumn, LayerColumn, KindColumn, TypeColumn, FixedColumnCount };

    explicit ComparisonTableModel(QObject* parent = nullptr);

    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison);
    void setResults(std::shared_ptr<const gguf::ComparisonResults> results);
    // The run stopped (failed, cancelled): cells without a figure will not get one. `why` is
    // their tool tip.
    void setStopped(const QString& why);
    // Index into comparisonMetrics().
    void setMetric(int metric);
    int metric() const { return m_metric; }

    // The comparison column behind a table column at or after FixedColumnCount.
    std::size_t comparisonColumn(int tableColumn) const { return static_cast<std::size_t>(tableColumn - FixedColumnCount); }

    // A figure as the table shows it: 6 significant digits, nan/inf spelled out.
    static QString metricText(double value);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant metricData(int row, std::size_t column, int role) const;

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::shared_ptr<const gguf::ComparisonResults> m_results;
    QString m_stopped;  // why cells without a figure have none; empty while the run may still give one
    std::vector<std::uint32_t> m_columnTypes;  // comparisonColumnType of each column, found once
    int m_metric = 0;
};
