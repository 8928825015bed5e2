#include "ui/recipe/RecipeGridView.h"

#include "core/base/HumanFormat.h"
#include "ui/common/QuantTypeColour.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <algorithm>

namespace {

QString bpwText(double bpw)
{
    return QString::fromStdString(gguf::formatFixed(bpw, 3));
}

QTableWidgetItem* readOnlyItem(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return item;
}

}  // namespace

RecipeGridView::RecipeGridView(QWidget* parent) : QTableWidget(parent), m_totals(new QTableView(parent ? parent : this))
{
    setObjectName(QStringLiteral("recipeGrid"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The same model and selection: the strip is a second view of the table's last two rows.
    m_totals->setObjectName(QStringLiteral("recipeGridTotals"));
    m_totals->setModel(model());
    m_totals->setSelectionModel(selectionModel());
    m_totals->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_totals->horizontalHeader()->hide();
    m_totals->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_totals->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_totals->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_totals->setFocusPolicy(Qt::NoFocus);
    // Sideways the grid leads: its scroll bar moves both.
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, m_totals->horizontalScrollBar(), &QScrollBar::setValue);
    connect(horizontalScrollBar(), &QScrollBar::rangeChanged, this, [this]() { m_totals->horizontalScrollBar()->setValue(horizontalScrollBar()->value()); });
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column, int, int size) { m_totals->setColumnWidth(column, size); });
    connect(verticalHeader(), &QHeaderView::geometriesChanged, this, [this]() { m_totals->verticalHeader()->setFixedWidth(verticalHeader()->width()); });
    if (!parent)
        m_totals->hide();  // nowhere to put it: a grid on its own shows its totals rows itself
}

// Column widths fit the widest cell of either view (the totals hold "12.3 MiB", the cells a
// type name); the strip's row header is as wide as the grid's so the columns line up.
void RecipeGridView::matchTotals()
{
    const int rows = rowCount();
    const bool frozen = m_totals->parent() != this;
    for (int r = 0; r < rows; ++r) {
        const bool total = frozen && r >= rows - 2;
        setRowHidden(r, total);
        m_totals->setRowHidden(r, !total);
    }
    for (int c = 0; c < columnCount(); ++c) {
        int width = std::max(sizeHintForColumn(c), horizontalHeader()->sectionSizeHint(c));
        for (int r = std::max(0, rows - 2); r < rows; ++r)
            if (const QTableWidgetItem* total = item(r, c))
                width = std::max(width, fontMetrics().horizontalAdvance(total->text()) + 2 * style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 8);
        setColumnWidth(c, width);
        m_totals->setColumnWidth(c, width);
    }
    m_totals->verticalHeader()->setFixedWidth(verticalHeader()->width());
    // Rows as tall as the grid's (which fit their contents).
    m_totals->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_totals->verticalHeader()->setDefaultSectionSize(rows > 2 ? rowHeight(0) : verticalHeader()->defaultSectionSize());
    int height = 2 * m_totals->frameWidth();
    for (int r = std::max(0, rows - 2); r < rows; ++r)
        height += m_totals->rowHeight(r);
    m_totals->setFixedHeight(height);
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
    matchTotals();
}
