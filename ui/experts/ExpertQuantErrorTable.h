#pragma once
// The Quantization error table, as the Experts page and the Compare page's Experts tab show it:
// one row per expert, sortable by each metric's value, columns sized to their contents.

class QSortFilterProxyModel;
class QTableView;
class ExpertQuantErrorModel;

// Once for a new table: `proxy` sorts `model` by its SortRole, and `table` shows `proxy`.
void setUpExpertQuantErrorTable(QTableView* table, QSortFilterProxyModel* proxy, ExpertQuantErrorModel* model);
