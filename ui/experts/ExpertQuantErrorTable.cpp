#include "experts/ExpertQuantErrorTable.h"

#include "session/ExpertQuantErrorModel.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

void setUpExpertQuantErrorTable(QTableView* table, QSortFilterProxyModel* proxy, ExpertQuantErrorModel* model)
{
    proxy->setSourceModel(model);
    // By value, not by the text shown: "1.2e-05" must sort below "3.4e-04".
    proxy->setSortRole(ExpertQuantErrorModel::SortRole);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(0, Qt::AscendingOrder);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}
