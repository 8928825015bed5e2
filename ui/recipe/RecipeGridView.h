#pragma once
// The layers x roles grid as a table: a cell per tensor showing its type, coloured by type,
// with its bytes and bits per weight in the tooltip; a last column and a last two rows with
// the bytes and bpw per layer and per role. The two totals rows stay in the table's model (so
// copying and tests see one table) but are shown frozen in totalsView(), a strip under the
// grid that scrolls sideways with it and never scrolls away: an 80-layer grid keeps its totals
// in sight.

#include "core/recipe/RecipeGrid.h"

#include <QTableWidget>

class QTableView;

class RecipeGridView : public QTableWidget {
    Q_OBJECT
public:
    explicit RecipeGridView(QWidget* parent = nullptr);
    void showGrid(const gguf::RecipeGrid& grid);
    const gguf::RecipeGrid& grid() const { return m_grid; }
    // The frozen totals rows; the page puts it right under the grid.
    QTableView* totalsView() const { return m_totals; }

private:
    void matchTotals();

    gguf::RecipeGrid m_grid;
    QTableView* m_totals;
};
