#pragma once
// The layers x roles grid as a table: a cell per tensor showing its type, coloured by type,
// with its bytes and bits per weight in the tooltip; a last column and a last two rows with
// the bytes and bpw per layer and per role.

#include "core/recipe/RecipeGrid.h"

#include <QTableWidget>

class RecipeGridView : public QTableWidget {
    Q_OBJECT
public:
    explicit RecipeGridView(QWidget* parent = nullptr);
    void showGrid(const gguf::RecipeGrid& grid);
    const gguf::RecipeGrid& grid() const { return m_grid; }

private:
    gguf::RecipeGrid m_grid;
};
