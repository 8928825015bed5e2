#include "ui/session/TensorTableModel.h"

#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"

TensorTableModel::TensorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TensorTableModel::setModel(std::shared_ptr<const gguf::Model> model)
{
    beginResetModel();
    m_model = std::move(model);
    endResetModel();
}

int TensorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_model ? 0 : static_cast<int>(m_model->tensors().size());
}

int TensorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const gguf::TensorInfo& tensor = m_model->tensors()[static_cast<std::size_t>(index.row())];
    const bool sortValue = role == SortRole;
    if (role != Qt::DisplayRole && !sortValue) {
        if (role == Qt::TextAlignmentRole && index.column() >= BitsPerWeight)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    switch (index.column()) {
    case Name: {
        // Shown, never interpreted: a control character in a name appears as its escape (\x1b).
        const std::string shown = gguf::escapeForDisplay(tensor.name);
        return QString::fromUtf8(shown.data(), static_cast<qsizetype>(shown.size()));
    }
    case Type: return QString::fromStdString(gguf::typeName(tensor.typeId));
    case Shape: {
        if (sortValue)
            return QVariant::fromValue<qulonglong>(tensor.elementCount());
        QStringList dims;
        for (std::uint32_t d = 0; d < tensor.nDims; ++d)
            dims << QString::number(tensor.ne[d]);
        return tensor.nDims == 0 ? tr("scalar") : QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
    }
    case BitsPerWeight:
        if (!tensor.traits)
            return sortValue ? QVariant(-1.0) : QVariant(QStringLiteral("?"));
        return sortValue ? QVariant(tensor.traits->bitsPerWeight()) : QVariant(QString::fromStdString(gguf::formatFixed(tensor.traits->bitsPerWeight(), 3)));
    case Size:
        return sortValue ? QVariant::fromValue<qulonglong>(tensor.nbytes) : QVariant(QString::fromStdString(gguf::formatBytes(tensor.nbytes)));
    case Offset: return QVariant::fromValue<qulonglong>(tensor.offset);
    default: return {};
    }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Type: return tr("Type");
    case Shape: return tr("Shape (ne)");
    case BitsPerWeight: return tr("Bits/weight");
    case Size: return tr("Size");
    case Offset: return tr("Data offset");
    default: return {};
    }
}
