#include "ui/session/ScanProbeListModel.h"

#include "core/base/EscapedText.h"

ScanProbeListModel::ScanProbeListModel(QObject* parent) : QAbstractTableModel(parent) {}

void ScanProbeListModel::setProbes(std::shared_ptr<const gguf::ScanRecord> record, std::vector<std::size_t> probes)
{
    beginResetModel();
    m_record = std::move(record);
    m_probes = m_record ? std::move(probes) : std::vector<std::size_t>{};
    endResetModel();
}

int ScanProbeListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_probes.size());
}

int ScanProbeListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScanProbeListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == Group ? QVariant{} : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const std::size_t probe = m_probes[static_cast<std::size_t>(index.row())];
    const gguf::ProbeFigures& f = *m_record->figures[probe];
    switch (index.column()) {
    case Group: return QString::fromStdString(gguf::escapeForDisplay(m_record->groups[m_record->probes[probe].group].tensor));  // a name from the file
    case MeanKld: return QString::number(f.meanKld, 'g', 4);
    case TrimmedKld: return f.trimmedKld ? QString::number(*f.trimmedKld, 'g', 4) : QStringLiteral("–");
    case SameTop: return QStringLiteral("%1 %").arg(100.0 * f.sameTopFraction, 0, 'f', 2);
    case DeltaTop: return QString::number(f.meanDeltaTopProbability, 'g', 3);
    default: return {};
    }
}

QVariant ScanProbeListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        if (section == MeanKld)
            return tr("The mean KLD over the positions scored: the planner's cost");
        if (section == TrimmedKld)
            return tr("The 10 % trimmed mean (without the largest and smallest 5 % of positions): a few positions where a router "
                      "picked another expert cannot move it. The planner's cost curve asks it to agree before fewer bits count as worse.");
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Group: return tr("group");
    case MeanKld: return tr("mean KLD");
    case TrimmedKld: return tr("trimmed");
    case SameTop: return tr("top-1");
    case DeltaTop: return tr("Δp");
    default: return {};
    }
}
