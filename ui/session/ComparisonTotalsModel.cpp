#include "ui/session/ComparisonTotalsModel.h"

#include "ui/session/ComparisonColumnTitle.h"
#include "ui/session/ComparisonMetric.h"
#include "ui/session/ComparisonTableModel.h"

ComparisonTotalsModel::ComparisonTotalsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonTotalsModel::setComparison(std::shared_ptr<const gguf::ModelComparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    m_summaries.clear();
    endResetModel();
}

void ComparisonTotalsModel::setResults(std::shared_ptr<const gguf::ComparisonResults> results)
{
    beginResetModel();
    m_summaries = m_comparison && results ? gguf::summaryErrorMetrics(*m_comparison, *results) : std::vector<gguf::SummaryErrorMetrics>{};
    endResetModel();
}

void ComparisonTotalsModel::setMetric(int metric)
{
    if (metric == m_metric || metric < 0 || metric >= static_cast<int>(comparisonMetricsWithImportance().size()))
        return;
    m_metric = metric;
    if (rowCount() > 0 && columnCount() > ComparisonTableModel::FixedColumnCount)
        emit dataChanged(index(0, ComparisonTableModel::FixedColumnCount), index(rowCount() - 1, columnCount() - 1));
}

int ComparisonTotalsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_summaries.size());
}

int ComparisonTotalsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_comparison ? 0 : ComparisonTableModel::FixedColumnCount + static_cast<int>(m_comparison->columns().size());
}

QVariant ComparisonTotalsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const gguf::SummaryErrorMetrics& summary = m_summaries[static_cast<std::size_t>(index.row())];
    const QString kind = QString::fromStdString(summary.kind);
    if (index.column() < ComparisonTableModel::FixedColumnCount) {
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
            return {};
        switch (index.column()) {
        case ComparisonTableModel::TensorColumn: return summary.kind.empty() ? tr("all tensors") : tr("all %1").arg(kind);
        case ComparisonTableModel::KindColumn: return kind;
        default: return {};
        }
    }
    const std::size_t column = static_cast<std::size_t>(index.column() - ComparisonTableModel::FixedColumnCount);
    const ComparisonMetric& metric = comparisonMetricsWithImportance()[static_cast<std::size_t>(m_metric)];
    const std::size_t tensors = summary.tensorCounts[column];
    switch (role) {
    case Qt::DisplayRole: return tensors == 0 ? QStringLiteral("–") : ComparisonTableModel::metricText(metric.valueIn(summary.metrics[column]));
    case Qt::ToolTipRole: {
        QString tip = tr("%1 of %n computed tensor(s) together in %2", nullptr, static_cast<int>(tensors))
                          .arg(metric.displayName(), comparisonColumnTitle(*m_comparison, column));
        if (summary.kind.empty())
            tip += tr("\nThe same figures as the command line's \"all compared tensors together\".");
        else
            tip += tr("\nPercentiles are the worst tensor's; every other figure is that of all their weights at once.");
        return tip;
    }
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}
