#include "MetadataTableModel.h"

#include "MetadataFormat.h"

MetadataTableModel::MetadataTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetadataTableModel::setModel(std::shared_ptr<const gguf::Model> model)
{
    beginResetModel();
    m_model = std::move(model);
    endResetModel();
}

int MetadataTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_model ? 0 : static_cast<int>(m_model->metadata().size());
}

int MetadataTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetadataTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    const gguf::MetadataEntry& entry = m_model->metadata()[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case Key: return QString::fromStdString(gguf::escapeForDisplay(entry.key));
    case Type: return QString::fromStdString(entry.value.typeName());
    case Value: {
        // Tooltips show more elements, but stay bounded: a vocabulary has 256k entries.
        const std::size_t elements = role == Qt::ToolTipRole ? 64 : 8;
        QString text = QString::fromStdString(gguf::formatValue(entry.value, elements));
        return role == Qt::ToolTipRole && text.size() > 4000 ? text.left(4000) + QStringLiteral("…") : text;
    }
    default: return {};
    }
}

QVariant MetadataTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key: return tr("Key");
    case Type: return tr("Type");
    case Value: return tr("Value");
    default: return {};
    }
}
