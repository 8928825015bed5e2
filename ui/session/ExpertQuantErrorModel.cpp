#include "session/ExpertQuantErrorModel.h"

ExpertQuantErrorModel::ExpertQuantErrorModel(QObject* parent) : QAbstractTableModel(parent) {}

QString ExpertQuantErrorModel::metricName(Metric metric)
{
    switch (metric) {
    case Metric::RelativeRmse: return tr("relative RMSE");
    case Metric::Rmse: return tr("RMSE");
    case Metric::SqnrDb: return tr("SQNR (dB)");
    case Metric::MaxAbsError: return tr("max |error|");
    case Metric::CosineSimilarity: return tr("cosine similarity");
    }
    return {};
}

double ExpertQuantErrorModel::metricValue(const gguf::ErrorMetrics& metrics, Metric metric)
{
    switch (metric) {
    case Metric::RelativeRmse: return metrics.relativeRmse;
    case Metric::Rmse: return metrics.rmse;
    case Metric::SqnrDb: return metrics.sqnrDb;
    case Metric::MaxAbsError: return metrics.maxAbsError;
    case Metric::CosineSimilarity: return metrics.cosineSimilarity;
    }
    return 0.0;
}

void ExpertQuantErrorModel::reset(std::uint64_t expertCount, const QStringList& columnLabels)
{
    beginResetModel();
    m_expertCount = expertCount;
    m_labels = columnLabels;
    m_cells.assign(static_cast<std::size_t>(expertCount) * static_cast<std::size_t>(columnLabels.size()), std::nullopt);
    endResetModel();
}

void ExpertQuantErrorModel::setMetrics(std::uint64_t expert, int column, const gguf::ErrorMetrics& metrics)
{
    if (expert >= m_expertCount || column < 0 || column >= m_labels.size())
        return;
    m_cells[static_cast<std::size_t>(expert) * static_cast<std::size_t>(m_labels.size()) + static_cast<std::size_t>(column)] = metrics;
    const QModelIndex changed = index(static_cast<int>(expert), column + 1);
    emit dataChanged(changed, changed);
}

void ExpertQuantErrorModel::setMetric(Metric metric)
{
    if (metric == m_metric)
        return;
    m_metric = metric;
    if (m_expertCount > 0 && !m_labels.isEmpty())
        emit dataChanged(index(0, 1), index(rowCount() - 1, columnCount() - 1));
    emit headerDataChanged(Qt::Horizontal, 1, static_cast<int>(m_labels.size()));
}

const std::optional<gguf::ErrorMetrics>& ExpertQuantErrorModel::metrics(std::uint64_t expert, int column) const
{
    static const std::optional<gguf::ErrorMetrics> none;
    if (expert >= m_expertCount || column < 0 || column >= m_labels.size())
        return none;
    return m_cells[static_cast<std::size_t>(expert) * static_cast<std::size_t>(m_labels.size()) + static_cast<std::size_t>(column)];
}

int ExpertQuantErrorModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_expertCount);
}

int ExpertQuantErrorModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 1 + static_cast<int>(m_labels.size());
}

QVariant ExpertQuantErrorModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    if (index.column() == 0)
        return static_cast<qulonglong>(index.row());
    const auto& cell = metrics(static_cast<std::uint64_t>(index.row()), index.column() - 1);
    if (!cell)
        return role == Qt::DisplayRole ? QVariant(QStringLiteral("…")) : QVariant();
    const double value = metricValue(*cell, m_metric);
    return role == SortRole ? QVariant(value) : QVariant(QString::number(value, 'g', 5));
}

QVariant ExpertQuantErrorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    return section == 0 ? tr("Expert") : QStringLiteral("%1\n%2").arg(m_labels[section - 1], metricName(m_metric));
}
