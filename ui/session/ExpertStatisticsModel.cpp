#include "ui/session/ExpertStatisticsModel.h"

#include "core/gguf/MetadataFormat.h"

namespace {
QString number(double value)
{
    return QString::fromStdString(gguf::formatFloat(value, false));
}

// Six significant digits are plenty on screen; the tooltip and the sort role keep every digit.
QString shortNumber(double value)
{
    return QString::number(value, 'g', 6);
}
}  // namespace

ExpertStatisticsModel::ExpertStatisticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExpertStatisticsModel::reset(std::uint64_t expertCount)
{
    beginResetModel();
    m_rows.assign(static_cast<std::size_t>(expertCount), std::nullopt);
    m_readyCount = 0;
    endResetModel();
}

void ExpertStatisticsModel::setStatistics(const gguf::ExpertStatistics& statistics)
{
    if (statistics.expert >= m_rows.size())
        return;
    auto& row = m_rows[static_cast<std::size_t>(statistics.expert)];
    if (!row)
        ++m_readyCount;
    row = statistics;
    const int r = static_cast<int>(statistics.expert);
    emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
}

const std::optional<gguf::ExpertStatistics>& ExpertStatisticsModel::statistics(std::uint64_t expert) const
{
    static const std::optional<gguf::ExpertStatistics> none;
    return expert < m_rows.size() ? m_rows[static_cast<std::size_t>(expert)] : none;
}

int ExpertStatisticsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ExpertStatisticsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExpertStatisticsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto expert = static_cast<qulonglong>(index.row());
    const std::optional<gguf::ExpertStatistics>& row = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (index.column() == ExpertColumn) {
        if (role == Qt::DisplayRole || role == SortRole)
            return expert;
        return {};
    }
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    if (!row)
        return role == Qt::DisplayRole ? QVariant(QStringLiteral("…")) : QVariant();
    const gguf::Statistics& s = row->statistics;
    double value = 0.0;
    switch (static_cast<Column>(index.column())) {
    case MeanColumn: value = s.mean; break;
    case StdColumn: value = s.stddev; break;
    case RmsColumn: value = s.rms; break;
    case MaxAbsColumn: value = row->maxAbs; break;
    case SparsityColumn: value = row->sparsity; break;
    case NanColumn: return role == Qt::ToolTipRole ? QVariant() : QVariant(static_cast<qulonglong>(s.nanCount));
    case InfColumn: return role == Qt::ToolTipRole ? QVariant() : QVariant(static_cast<qulonglong>(s.infCount));
    case ExpertColumn:
    case ColumnCount: return {};
    }
    if (role == SortRole)
        return value;
    if (role == Qt::ToolTipRole)
        return number(value);
    if (index.column() == SparsityColumn)
        return tr("%1 %").arg(QString::number(value * 100.0, 'f', 3));
    return shortNumber(value);
}

QVariant ExpertStatisticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    switch (static_cast<Column>(section)) {
    case ExpertColumn: return tr("Expert");
    case MeanColumn: return tr("Mean");
    case StdColumn: return tr("Std");
    case RmsColumn: return tr("RMS");
    case MaxAbsColumn: return tr("Max |w|");
    case SparsityColumn: return tr("Zeros");
    case NanColumn: return tr("NaN");
    case InfColumn: return tr("Inf");
    case ColumnCount: break;
    }
    return {};
}
