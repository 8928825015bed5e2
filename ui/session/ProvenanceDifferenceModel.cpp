#include "ui/session/ProvenanceDifferenceModel.h"

#include "core/base/EscapedText.h"
#include "core/types/GgmlType.h"

namespace {
const QString kNone = QStringLiteral("—");
}  // namespace

ProvenanceDifferenceModel::ProvenanceDifferenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProvenanceDifferenceModel::setDifference(std::optional<gguf::ProvenanceDifference> difference)
{
    beginResetModel();
    m_difference = std::move(difference);
    endResetModel();
}

int ProvenanceDifferenceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_difference ? 0 : 1;
}

int ProvenanceDifferenceModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProvenanceDifferenceModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || role != Qt::DisplayRole || index.row() >= rowCount())
        return {};
    const gguf::ProvenanceDifference& d = *m_difference;
    const bool inData = d.kind == gguf::ProvenanceDifferenceKind::Data;
    switch (index.column()) {
    case Tensor: return QString::fromStdString(gguf::escapeForDisplay(d.tensor));  // a name from the file
    case Kind: return QString::fromLatin1(gguf::provenanceDifferenceName(d.kind));
    case FileType: return d.kind == gguf::ProvenanceDifferenceKind::Missing ? kNone : QString::fromStdString(gguf::typeName(d.fileType));
    case ExpectedType: return d.kind == gguf::ProvenanceDifferenceKind::Extra ? kNone : QString::fromStdString(gguf::typeName(d.expectedType));
    case FirstByte: return inData ? QString::number(d.byteOffset) : kNone;
    case Row: return inData ? QString::number(d.row) : kNone;
    default: return {};
    }
}

QVariant ProvenanceDifferenceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Tensor: return tr("tensor");
    case Kind: return tr("difference");
    case FileType: return tr("file");
    case ExpectedType: return tr("llama-quantize");
    case FirstByte: return tr("first differing byte");
    case Row: return tr("row");
    default: return {};
    }
}
