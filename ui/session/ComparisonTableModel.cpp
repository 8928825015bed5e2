#include "ui/session/ComparisonTableModel.h"

#include "ui/session/ComparisonColumnTitle.h"
#include "ui/session/ComparisonMetric.h"

#include <cmath>
#include <limits>

namespace {

QString cellStatusText(gguf::CellStatus status)
{
    switch (status) {
    case gguf::CellStatus::Ok: return {};
    case gguf::CellStatus::Missing: return ComparisonTableModel::tr("missing");
    case gguf::CellStatus::ShapeMismatch: return ComparisonTableModel::tr("shape mismatch");
    case gguf::CellStatus::Undecodable: return ComparisonTableModel::tr("undecodable");
    case gguf::CellStatus::NoImportance: return ComparisonTableModel::tr("no imatrix entry");
    }
    return {};
}

QString formatMetric(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(value, 'g', 6);
}

}  // namespace

QString ComparisonTableModel::metricText(double value)
{
    return formatMetric(value);
}

ComparisonTableModel::ComparisonTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonTableModel::setComparison(std::shared_ptr<const gguf::ModelComparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    m_results.reset();
    m_stopped.clear();
    m_columnTypes.clear();
    if (m_comparison)
        for (std::size_t c = 0; c < m_comparison->columns().size(); ++c)
            m_columnTypes.push_back(comparisonColumnType(*m_comparison, c));
    endResetModel();
}

void ComparisonTableModel::setResults(std::shared_ptr<const gguf::ComparisonResults> results)
{
    m_results = std::move(results);
    if (rowCount() > 0 && columnCount() > FixedColumnCount)
        emit dataChanged(index(0, FixedColumnCount), index(rowCount() - 1, columnCount() - 1));
}

void ComparisonTableModel::setStopped(const QString& why)
{
    m_stopped = why;
    if (rowCount() > 0 && columnCount() > FixedColumnCount)
        emit dataChanged(index(0, FixedColumnCount), index(rowCount() - 1, columnCount() - 1));
}

void ComparisonTableModel::setMetric(int metric)
{
    if (metric == m_metric || metric < 0 || metric >= static_cast<int>(comparisonMetricsWithImportance().size()))
        return;
    m_metric = metric;
    if (columnCount() > FixedColumnCount) {
        emit headerDataChanged(Qt::Horizontal, FixedColumnCount, columnCount() - 1);
        if (rowCount() > 0)
            emit dataChanged(index(0, FixedColumnCount), index(rowCount() - 1, columnCount() - 1));
    }
}

int ComparisonTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_comparison ? 0 : static_cast<int>(m_comparison->rows().size());
}

int ComparisonTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_comparison ? 0 : FixedColumnCount + static_cast<int>(m_comparison->columns().size());
}

QVariant ComparisonTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const gguf::ComparisonRow& row = m_comparison->rows()[static_cast<std::size_t>(index.row())];
    if (index.column() >= FixedColumnCount)
        return metricData(index.row(), comparisonColumn(index.column()), role);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case TensorColumn: return QString::fromUtf8(row.reference->name.data(), static_cast<qsizetype>(row.reference->name.size()));
    case LayerColumn:
        if (row.nameParts.layer)
            return role == SortRole ? QVariant(static_cast<qlonglong>(*row.nameParts.layer)) : QVariant(*row.nameParts.layer);
        return role == SortRole ? QVariant(qlonglong(-1)) : QVariant(QString());
    case KindColumn: return QString::fromStdString(row.nameParts.kind);
    case TypeColumn: return QString::fromStdString(gguf::typeName(row.reference->typeId));
    default: return {};
    }
}

QVariant ComparisonTableModel::metricData(int row, std::size_t column, int role) const
{
    const gguf::ComparisonCell& cell = m_comparison->rows()[static_cast<std::size_t>(row)].cells[column];
    const ComparisonMetric& metric = comparisonMetricsWithImportance()[static_cast<std::size_t>(m_metric)];
    const std::optional<gguf::ErrorMetrics>* metrics =
        m_results ? &m_results->cells[static_cast<std::size_t>(row)][column] : nullptr;
    const bool computed = metrics && metrics->has_value();
    // A tensor the file keeps at the reference's precision (the f32 norms) is no quant choice.
    const bool otherType = cell.ok() && m_comparison->columns()[column].kind == gguf::ComparisonColumn::Kind::File
                        && cell.typeId != m_columnTypes[column]
                        && cell.typeId != m_comparison->rows()[static_cast<std::size_t>(row)].reference->typeId;
    switch (role) {
    case CellTypeRole: return otherType ? QVariant(cell.typeId) : QVariant();
    case Qt::DisplayRole:
        if (!cell.ok())
            return cellStatusText(cell.status);
        if (computed)
            return formatMetric(metric.valueIn(**metrics));
        return m_stopped.isEmpty() ? QStringLiteral("…") : QStringLiteral("—");
    case SortRole: {
        // Cells without a figure sort after every number, whatever the direction's meaning.
        if (!computed)
            return std::numeric_limits<double>::max();
        const double value = metric.valueIn(**metrics);
        return std::isnan(value) ? std::numeric_limits<double>::max() : value;
    }
    case Qt::ToolTipRole: {
        if (!cell.ok())
            return QString::fromStdString(cell.problem);
        if (!computed && !m_stopped.isEmpty())
            return tr("Not computed: %1").arg(m_stopped);
        QString tip = tr("%1 as %2").arg(metric.displayName(), QString::fromStdString(gguf::typeName(cell.typeId)));
        if (otherType)
            tip += QLatin1Char('\n') + tr("This tensor is %1, not the column's %2.")
                                       .arg(QString::fromStdString(gguf::typeName(cell.typeId)), QString::fromStdString(gguf::typeName(m_columnTypes[column])));
        if (!cell.note.empty())
            tip += QLatin1Char('\n') + QString::fromStdString(cell.note);
        return tip;
    }
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section >= FixedColumnCount) {
                // Named by what the column holds (its quant type); the file is in the tooltip.
        if (role == Qt::DisplayRole)
            return comparisonColumnTitle(*m_comparison, comparisonColumn(section));
        if (role == Qt::ToolTipRole)
            return tr("%1: %2\n%3 against the reference %4")
                .arg(comparisonColumnTitle(*m_comparison, comparisonColumn(section)), comparisonColumnSource(*m_comparison, comparisonColumn(section)),
                     comparisonMetricsWithImportance()[static_cast<std::size_t>(m_metric)].displayName(),
                     QString::fromStdString(m_comparison->reference().primary().path()));
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TensorColumn: return tr("Tensor");
    case LayerColumn: return tr("Layer");
    case KindColumn: return tr("Kind");
    case TypeColumn: return tr("Reference type");
    default: return {};
    }
}
