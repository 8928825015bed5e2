#include "ui/session/FindResultsModel.h"

namespace {
// A hit's index carries its group's row + 1 as internal id; a group's row carries 0.
constexpr quintptr kGroupRow = 0;
}  // namespace

FindResultsModel::FindResultsModel(QObject* parent) : QAbstractItemModel(parent) {}

void FindResultsModel::setGroups(std::vector<FindGroup> groups)
{
    beginResetModel();
    m_groups = std::move(groups);
    endResetModel();
}

void FindResultsModel::addGroup(FindGroup group)
{
    const int row = static_cast<int>(m_groups.size());
    beginInsertRows({}, row, row);
    m_groups.push_back(std::move(group));
    endInsertRows();
}

QString FindResultsModel::title(FindKind kind)
{
    switch (kind) {
    case FindKind::Page: return tr("Pages");
    case FindKind::Metadata: return tr("Metadata");
    case FindKind::Tensor: return tr("Tensors");
    case FindKind::Token: return tr("Tokens");
    }
    return {};
}

QModelIndex FindResultsModel::groupIndex(FindKind kind) const
{
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        if (m_groups[g].kind == kind)
            return createIndex(static_cast<int>(g), 0, kGroupRow);
    return {};
}

const FindHit* FindResultsModel::hit(const QModelIndex& index, FindKind* kind) const
{
    if (!index.isValid() || index.internalId() == kGroupRow)
        return nullptr;
    const FindGroup& group = m_groups[index.internalId() - 1];
    if (index.row() >= static_cast<int>(group.shown.size()))
        return nullptr;  // "… and N more"
    if (kind)
        *kind = group.kind;
    return &group.shown[static_cast<std::size_t>(index.row())];
}

QModelIndex FindResultsModel::firstHit() const
{
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        if (!m_groups[g].shown.empty())
            return createIndex(0, 0, static_cast<quintptr>(g + 1));
    return {};
}

QModelIndex FindResultsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return parent.isValid() ? createIndex(row, column, static_cast<quintptr>(parent.row() + 1)) : createIndex(row, column, kGroupRow);
}

QModelIndex FindResultsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == kGroupRow)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kGroupRow);
}

int FindResultsModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() != kGroupRow || parent.column() != 0)
        return 0;
    const FindGroup& group = m_groups[static_cast<std::size_t>(parent.row())];
    const int shown = static_cast<int>(group.shown.size());
    return shown + (group.total > shown ? 1 : 0);
}

int FindResultsModel::columnCount(const QModelIndex&) const
{
    return 1;
}

QVariant FindResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == kGroupRow) {
        const FindGroup& group = m_groups[static_cast<std::size_t>(index.row())];
        if (role == GroupRowRole)
            return true;
        return role == Qt::DisplayRole ? QVariant(tr("%1 (%2)").arg(title(group.kind)).arg(group.total)) : QVariant();
    }
    const FindHit* found = hit(index);
    if (role == Qt::ToolTipRole)
        return found ? QVariant(found->text) : QVariant();
    if (role != Qt::DisplayRole)
        return role == GroupRowRole ? QVariant(false) : QVariant();
    if (found)
        return found->text;
    const FindGroup& group = m_groups[index.internalId() - 1];
    return tr("… and %1 more").arg(group.total - static_cast<int>(group.shown.size()));
}
