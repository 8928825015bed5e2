#include "ui/session/ExpertQuantErrorModel.h"

#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ImportanceErrorMetrics.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <string_view>

ExpertQuantErrorModel::ExpertQuantErrorModel(QObject* parent) : QAbstractTableModel(parent) {}

namespace {
// The view's metrics as rows of the core's metric tables, which name them and read their values.
const gguf::ErrorMetricInfo& weightedRow(std::string_view key)
{
    const auto table = gguf::importanceMetricTable();
    return *std::find_if(table.begin(), table.end(), [key](const gguf::ErrorMetricInfo& info) { return key == info.key; });
}

const gguf::ErrorMetricInfo& rowOf(ExpertQuantErrorModel::Metric metric)
{
    using Metric = ExpertQuantErrorModel::Metric;
    const char* key = "relative_rmse";
    switch (metric) {
    case Metric::RelativeRmse: key = "relative_rmse"; break;
    case Metric::Rmse: key = "rmse"; break;
    case Metric::SqnrDb: key = "sqnr_db"; break;
    case Metric::MaxAbsError: key = "max_abs_error"; break;
    case Metric::CosineSimilarity: key = "cosine_similarity"; break;
    case Metric::WeightedSquaredError: return weightedRow("weighted_squared_error");
    case Metric::RelativeWeightedError: return weightedRow("relative_weighted_error");
    }
    return *gguf::findErrorMetric(key);
}
}  // namespace

QString ExpertQuantErrorModel::metricName(Metric metric)
{
    return QCoreApplication::translate("ComparisonMetric", rowOf(metric).label);
}

bool ExpertQuantErrorModel::isWeighted(Metric metric)
{
    return metric == Metric::WeightedSquaredError || metric == Metric::RelativeWeightedError;
}

double ExpertQuantErrorModel::metricValue(const gguf::ErrorMetrics& metrics, Metric metric)
{
    return rowOf(metric).valueIn(metrics);
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
    if (isWeighted(m_metric) && std::isnan(value))  // a tensor the matrix has no weights for
        return role == SortRole ? QVariant() : QVariant(QStringLiteral("–"));
    return role == SortRole ? QVariant(value) : QVariant(QString::number(value, 'g', 5));
}

QVariant ExpertQuantErrorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    return section == 0 ? tr("Expert") : QStringLiteral("%1\n%2").arg(m_labels[section - 1], metricName(m_metric));
}
