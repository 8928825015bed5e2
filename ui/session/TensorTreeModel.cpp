#include "ui/session/TensorTreeModel.h"

#include <algorithm>

#include <QRegularExpression>
#include <map>

TensorTreeModel::TensorTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void TensorTreeModel::setModel(std::shared_ptr<const gguf::Model> model)
{
    beginResetModel();
    m_model = std::move(model);
    m_columns.setModel(m_model);
    m_groups.clear();
    if (m_model) {
        static const QRegularExpression layerPattern(QStringLiteral("^blk\\.(\\d+)\\."));
        std::map<long long, std::vector<int>> layers;
        std::vector<int> other;
        const auto& tensors = m_model->tensors();
        for (int i = 0; i < static_cast<int>(tensors.size()); ++i) {
            const QString name = QString::fromUtf8(tensors[static_cast<std::size_t>(i)].name.data(),
                                                   static_cast<qsizetype>(tensors[static_cast<std::size_t>(i)].name.size()));
            const QRegularExpressionMatch match = layerPattern.match(name);
            if (match.hasMatch())
                layers[match.captured(1).toLongLong()].push_back(i);
            else
                other.push_back(i);
        }
        for (auto& [layer, members] : layers)
            m_groups.push_back({QStringLiteral("blk.%1").arg(layer), std::move(members)});
        if (!other.empty())
            m_groups.push_back({tr("other (not in a layer)"), std::move(other)});
    }
    endResetModel();
}

QModelIndex TensorTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, quintptr(0));
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex TensorTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int TensorTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return static_cast<int>(m_groups[static_cast<std::size_t>(parent.row())].tensors.size());
}

int TensorTreeModel::columnCount(const QModelIndex&) const
{
    return TensorTableModel::ColumnCount;
}

QVariant TensorTreeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == 0) {
        const Group& group = m_groups[static_cast<std::size_t>(index.row())];
        if (role == TensorIndexRole)
            return -1;
        if (role == GroupNameRole)
            return index.column() == TensorTableModel::Name ? QVariant(group.name) : QVariant();
        if (index.column() == TensorTableModel::Name && (role == Qt::DisplayRole || role == TensorTableModel::SortRole))
            return tr("%1 (%n tensor(s))", nullptr, static_cast<int>(group.tensors.size())).arg(group.name);
        if (index.column() == TensorTableModel::Offset && role == TensorTableModel::SortRole)
            return QVariant::fromValue<qulonglong>(index.row());
        return {};
    }
    const int tensor = m_groups[index.internalId() - 1].tensors[static_cast<std::size_t>(index.row())];
    if (role == TensorIndexRole)
        return tensor;
    return m_columns.data(m_columns.index(tensor, index.column()), role);
}

QVariant TensorTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    return m_columns.headerData(section, orientation, role);
}

QModelIndex TensorTreeModel::indexOfTensor(int tensorIndex, int column) const
{
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        const std::vector<int>& members = m_groups[g].tensors;
        const auto found = std::find(members.begin(), members.end(), tensorIndex);
        if (found != members.end())
            return index(static_cast<int>(found - members.begin()), column, index(static_cast<int>(g), 0));
    }
    return {};
}
