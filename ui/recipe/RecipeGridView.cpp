#include "ui/recipe/RecipeGridView.h"

#include "core/base/HumanFormat.h"
#include "ui/common/QuantTypeColour.h"

#include <QHeaderView>

namespace {

QString bpwText(double bpw)
{
    return QString::number(bpw, 'f', 3);
}

QTableWidgetItem* readOnlyItem(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return item;
}

}  // namespace

RecipeGridView::RecipeGridView(QWidget* parent) : QTableWidget(parent)
{
    setObjectName(QStringLiteral("recipeGrid"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void RecipeGridView::showGrid(const gguf::RecipeGrid& grid)
{
    m_grid = grid;
    clear();
    const int roles = static_cast<int>(grid.roles.size());
    const int layers = static_cast<int>(grid.layers.size());
    setColumnCount(roles + 2);
    setRowCount(layers + 2);
    QStringList columns;
    for (const std::string& role : grid.roles)
        columns << QString::fromStdString(role);
    columns << tr("bytes") << tr("bpw");
    setHorizontalHeaderLabels(columns);
    QStringList rows;
    for (std::size_t r = 0; r < grid.layers.size(); ++r)
        rows << QString::fromStdString(grid.layerLabel(r));
    rows << tr("bytes") << tr("bpw");
    setVerticalHeaderLabels(rows);
    for (int r = 0; r < layers; ++r) {
        for (int c = 0; c < roles; ++c) {
            const gguf::GridTensor* cell = grid.at(std::size_t(r), std::size_t(c));
            if (!cell)
                continue;
            auto* item = readOnlyItem(QString::fromStdString(gguf::typeName(cell->typeId)));
            const QColor color = quantTypeColour(cell->typeId);
            item->setBackground(color);
            item->setForeground(textColourOn(color));
            item->setData(Qt::UserRole, cell->typeId);
            const double bpw = cell->elements ? 8.0 * double(cell->bytes) / double(cell->elements) : 0.0;
            item->setToolTip(tr("%1\n%2, %3 (%4 bytes), %5 bpw")
                                 .arg(QString::fromStdString(cell->name), QString::fromStdString(gguf::typeName(cell->typeId)),
                                      QString::fromStdString(gguf::formatBytes(cell->bytes)), QString::number(cell->bytes), bpwText(bpw)));
            setItem(r, c, item);
        }
        setItem(r, roles, readOnlyItem(QString::fromStdString(gguf::formatBytes(grid.layerTotals[std::size_t(r)].bytes))));
        setItem(r, roles + 1, readOnlyItem(bpwText(grid.layerTotals[std::size_t(r)].bitsPerWeight())));
    }
    for (int c = 0; c < roles; ++c) {
        setItem(layers, c, readOnlyItem(QString::fromStdString(gguf::formatBytes(grid.roleTotals[std::size_t(c)].bytes))));
        setItem(layers + 1, c, readOnlyItem(bpwText(grid.roleTotals[std::size_t(c)].bitsPerWeight())));
    }
    setItem(layers, roles, readOnlyItem(QString::fromStdString(gguf::formatBytes(grid.total.bytes))));
    setItem(layers + 1, roles + 1, readOnlyItem(bpwText(grid.total.bitsPerWeight())));
}
