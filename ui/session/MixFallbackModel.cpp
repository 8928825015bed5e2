#include "ui/session/MixFallbackModel.h"

#include "core/base/EscapedText.h"
#include "core/types/GgmlType.h"

namespace {
QString typeText(std::uint32_t type)
{
    return QString::fromStdString(gguf::typeName(type));
}
}  // namespace

MixFallbackModel::MixFallbackModel(QObject* parent) : QAbstractTableModel(parent) {}

void MixFallbackModel::setFallbacks(std::vector<gguf::MixFallback> fallbacks)
{
    beginResetModel();
    m_fallbacks = std::move(fallbacks);
    endResetModel();
}

int MixFallbackModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_fallbacks.size());
}

int MixFallbackModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MixFallbackModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || role != Qt::DisplayRole || index.row() >= rowCount())
        return {};
    const gguf::MixFallback& f = m_fallbacks[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case Tensor: return QString::fromStdString(gguf::escapeForDisplay(f.tensor));  // a name from the file
    case RowLength: return QString::number(f.rowLength);
    case Chosen: return typeText(f.chosenType);
    case FellBackTo: return typeText(f.fallbackType);
    case Stored: return typeText(f.storedType);
    default: return {};
    }
}

QVariant MixFallbackModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Tensor: return tr("tensor");
    case RowLength: return tr("row");
    case Chosen: return tr("llama-quantize chose");
    case FellBackTo: return tr("fell back to");
    case Stored: return tr("stored");
    default: return {};
    }
}
