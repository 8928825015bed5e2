#pragma once
// Find Everywhere's results as a two-level tree: a row per group ("Tensors (12)"), under it the
// hits shown and, when there are more, a last "… and N more" row that goes nowhere.

#include "ui/session/FindResults.h"

#include <QAbstractItemModel>
#include <vector>

class FindResultsModel : public QAbstractItemModel {
    Q_OBJECT
public:
    static constexpr int GroupRowRole = Qt::UserRole + 1;  // true on a group's row

    explicit FindResultsModel(QObject* parent = nullptr);

    void setGroups(std::vector<FindGroup> groups);
    void addGroup(FindGroup group);  // after the others (the tokens, when their job ends)

    // The row of `kind`'s group; invalid when nothing of that kind matched.
    QModelIndex groupIndex(FindKind kind) const;
    // What the row at `index` goes to, with its group's kind; nullptr for a group or "more" row.
    const FindHit* hit(const QModelIndex& index, FindKind* kind = nullptr) const;
    // The first hit of the first group, invalid when nothing matched.
    QModelIndex firstHit() const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    static QString title(FindKind kind);

    std::vector<FindGroup> m_groups;
};
