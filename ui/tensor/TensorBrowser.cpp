#include "ui/tensor/TensorBrowser.h"
#include "ui/common/PageSearch.h"

#include "ui/session/TensorTableModel.h"
#include "ui/session/TensorTreeModel.h"
#include "ui/common/CopySelection.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace {
constexpr int kFilterDebounceMs = 300;

// The tree's filter; a group row counts the tensors the filter leaves under it ("blk.0 (3 of
// 9 tensors)") instead of all of them.
class TensorTreeFilterModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (role == Qt::DisplayRole && index.column() == TensorTableModel::Name && !index.parent().isValid()
            && !filterRegularExpression().pattern().isEmpty()) {
            const QModelIndex source = mapToSource(index);
            const int all = sourceModel()->rowCount(source);
            const int shown = rowCount(index);
            if (shown != all)
                return TensorBrowser::tr("%1 (%2 of %n tensor(s))", nullptr, all).arg(source.data(TensorTreeModel::GroupNameRole).toString()).arg(shown);
        }
        return QSortFilterProxyModel::data(index, role);
    }
};

QSortFilterProxyModel* createProxy(QAbstractItemModel* source, QObject* parent, bool tree)
{
    QSortFilterProxyModel* proxy = tree ? new TensorTreeFilterModel(parent) : new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(TensorTableModel::SortRole);
    proxy->setFilterKeyColumn(TensorTableModel::Name);
    proxy->setRecursiveFilteringEnabled(true);
    return proxy;
}
}  // namespace

TensorBrowser::TensorBrowser(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_tableModel(new TensorTableModel(this)), m_treeModel(new TensorTreeModel(this)),
      m_filter(new QLineEdit(this)), m_matchCount(new QLabel(this)), m_debounce(new QTimer(this)), m_groupToggle(new QToolButton(this)), m_stack(new QStackedWidget(this)),
      m_table(new QTableView(this)), m_tree(new QTreeView(this))
{
    m_tableModel->setModel(m_model);
    m_treeModel->setModel(m_model);
    m_tableProxy = createProxy(m_tableModel, this, false);
    m_treeProxy = createProxy(m_treeModel, this, true);

    m_filter->setObjectName(QStringLiteral("tensorFilter"));
    markPageSearch(m_filter);
    m_filter->setPlaceholderText(tr("Filter tensors (substring or regular expression)"));
    m_filter->setClearButtonEnabled(true);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kFilterDebounceMs);
    connect(m_filter, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_debounce, &QTimer::timeout, this, &TensorBrowser::applyFilter);

    m_matchCount->setObjectName(QStringLiteral("tensorMatchCount"));
    updateMatchCount();

    m_groupToggle->setText(tr("By layer"));
    m_groupToggle->setCheckable(true);
    m_groupToggle->setToolTip(tr("Group tensors by layer (blk.N)"));
    m_groupToggle->setObjectName(QStringLiteral("groupByLayer"));
    connect(m_groupToggle, &QToolButton::toggled, this, &TensorBrowser::setGroupedByLayer);

    m_table->setObjectName(QStringLiteral("tensorView"));
    m_table->setModel(m_tableProxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TensorTableModel::Offset, Qt::AscendingOrder);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(TensorTableModel::Name, QHeaderView::Interactive);
    m_table->setWordWrap(false);
    fitColumns();
    installCopyAction(m_table);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentRowChanged(current, false); });

    m_tree->setObjectName(QStringLiteral("tensorTree"));
    m_tree->setModel(m_treeProxy);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setColumnWidth(TensorTableModel::Name, m_table->columnWidth(TensorTableModel::Name) + 30);  // room for the indent
    m_tree->setColumnWidth(TensorTableModel::Shape, m_table->columnWidth(TensorTableModel::Shape));
    installCopyAction(m_tree);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentRowChanged(current, true); });

    m_stack->addWidget(m_table);
    m_stack->addWidget(m_tree);
    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_matchCount);
    top->addWidget(m_groupToggle);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);
}

void TensorBrowser::setFilterText(const QString& text)
{
    m_filter->setText(text);
}

void TensorBrowser::clearFilter()
{
    m_filter->setText(QString());
    m_debounce->stop();
    applyFilter();
}

void TensorBrowser::setGroupedByLayer(bool grouped)
{
    m_groupToggle->setChecked(grouped);
    m_stack->setCurrentWidget(grouped ? static_cast<QWidget*>(m_tree) : m_table);
    if (grouped)
        m_tree->expandAll();
    highlightCurrent();
}

void TensorBrowser::applyFilter()
{
    const QString text = m_filter->text();
    QRegularExpression pattern(text, QRegularExpression::CaseInsensitiveOption);
    // Text that is not a valid expression is taken literally, so typing "blk.0.(" never hides
    // everything; the count says so, or a literal match would pass for a regular-expression one.
    m_patternError = pattern.isValid() ? QString() : pattern.errorString();
    if (!pattern.isValid())
        pattern.setPattern(QRegularExpression::escape(text));
    // Rows leaving under the filter move a view's current row to a neighbour: that is not the
    // user choosing it, so the tensor shown stays and the views highlight it again (or nothing).
    m_syncing = true;
    m_tableProxy->setFilterRegularExpression(pattern);
    m_treeProxy->setFilterRegularExpression(pattern);
    m_syncing = false;
    if (m_groupToggle->isChecked())
        m_tree->expandAll();
    highlightCurrent();
    updateMatchCount();
}

void TensorBrowser::updateMatchCount()
{
    const int all = m_tableModel->rowCount();
    const int shown = m_tableProxy->rowCount();
    const QString tensors = all == 1 ? tr("1 tensor") : tr("%1 tensors").arg(all);
    QString text = shown == all ? tensors : tr("%1 of %2").arg(shown).arg(tensors);
    if (!m_patternError.isEmpty())
        text = tr("%1, matched as text: not a regular expression").arg(text);
    m_matchCount->setText(text);
    m_matchCount->setToolTip(m_patternError.isEmpty() ? QString() : tr("Not a regular expression: %1").arg(m_patternError));
}

void TensorBrowser::fitColumns()
{
    // Every row, not only the ones on screen: the widest shape is often a 3-D expert tensor far
    // down. Name, Type, Shape and Bits/weight fit whole, so a pane as wide as sizeHint() shows
    // all four (at 1280 px the pane ended inside Bits/weight: "4.").
    const QFontMetrics metrics(m_table->font());
    const int padding = 2 * m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 2 * metrics.averageCharWidth();
    const auto fit = [&](int column, int cap) {
        int widest = metrics.horizontalAdvance(m_tableModel->headerData(column, Qt::Horizontal).toString()) + 2 * metrics.averageCharWidth();
        for (int row = 0; row < m_tableModel->rowCount(); ++row)
            widest = std::max(widest, metrics.horizontalAdvance(m_tableModel->index(row, column).data().toString()));
        m_table->setColumnWidth(column, std::min(widest + padding, cap));
    };
    fit(TensorTableModel::Name, 30 * metrics.averageCharWidth() + padding);  // a pathological name is elided, not the pane widened
    fit(TensorTableModel::Type, 12 * metrics.averageCharWidth() + padding);
    fit(TensorTableModel::Shape, std::numeric_limits<int>::max());
    fit(TensorTableModel::BitsPerWeight, std::numeric_limits<int>::max());
}

QSize TensorBrowser::sizeHint() const
{
    const int columns = m_table->columnWidth(TensorTableModel::Name) + m_table->columnWidth(TensorTableModel::Type)
                      + m_table->columnWidth(TensorTableModel::Shape) + m_table->columnWidth(TensorTableModel::BitsPerWeight);
    const int chrome = 2 * m_table->frameWidth() + m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_table);
    return {columns + chrome, QWidget::sizeHint().height()};
}

void TensorBrowser::onCurrentRowChanged(const QModelIndex& proxyIndex, bool fromTree)
{
    if (m_syncing || !proxyIndex.isValid())
        return;
    if (fromTree) {
        const int tensor = m_treeProxy->mapToSource(proxyIndex).data(TensorTreeModel::TensorIndexRole).toInt();
        if (tensor >= 0)  // a group row shows nothing new
            showTensor(tensor);
        return;
    }
    showTensor(m_tableProxy->mapToSource(proxyIndex).row());
}

void TensorBrowser::showTensor(int tensorIndex)
{
    const bool changed = tensorIndex != m_current;
    m_current = tensorIndex;
    highlightCurrent();
    if (changed)
        emit tensorSelected(tensorIndex);
}

void TensorBrowser::highlightCurrent()
{
    m_syncing = true;
    const auto highlight = [](QAbstractItemView* view, const QModelIndex& index) {
        if (!index.isValid()) {
            view->selectionModel()->clear();  // the shown tensor is filtered out: no other row stands for it
            return;
        }
        view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        view->scrollTo(index);
    };
    const bool any = m_current >= 0;
    highlight(m_table, any ? m_tableProxy->mapFromSource(m_tableModel->index(m_current, 0)) : QModelIndex());
    highlight(m_tree, any ? m_treeProxy->mapFromSource(m_treeModel->indexOfTensor(m_current)) : QModelIndex());
    m_syncing = false;
}

std::vector<QModelIndex> TensorBrowser::treeTensorRows() const
{
    std::vector<QModelIndex> rows;
    for (int group = 0; group < m_treeProxy->rowCount(); ++group) {
        const QModelIndex parent = m_treeProxy->index(group, 0);
        for (int row = 0; row < m_treeProxy->rowCount(parent); ++row)
            rows.push_back(m_treeProxy->index(row, 0, parent));
    }
    return rows;
}

void TensorBrowser::selectTensor(int tensorIndex)
{
    const QModelIndex proxyIndex = m_tableProxy->mapFromSource(m_tableModel->index(tensorIndex, 0));
    if (!proxyIndex.isValid())
        return;
    showTensor(tensorIndex);
}

void TensorBrowser::selectAdjacent(int step)
{
    if (m_groupToggle->isChecked()) {
        // In layer order, as the tree lists them, skipping the group rows; grouping stays on.
        const std::vector<QModelIndex> rows = treeTensorRows();
        if (rows.empty())
            return;
        const QModelIndex current = m_treeProxy->mapFromSource(m_treeModel->indexOfTensor(m_current));
        const auto at = std::find(rows.begin(), rows.end(), current);
        const int position = at != rows.end() ? static_cast<int>(at - rows.begin()) : (step > 0 ? -1 : static_cast<int>(rows.size()));
        const int next = std::clamp(position + step, 0, static_cast<int>(rows.size()) - 1);
        showTensor(m_treeProxy->mapToSource(rows[static_cast<std::size_t>(next)]).data(TensorTreeModel::TensorIndexRole).toInt());
        return;
    }
    const int rows = m_tableProxy->rowCount();
    if (rows == 0)
        return;
    const QModelIndex current = m_tableProxy->mapFromSource(m_tableModel->index(m_current, 0));
    const int position = current.isValid() ? current.row() : (step > 0 ? -1 : rows);
    const int next = std::clamp(position + step, 0, rows - 1);
    showTensor(m_tableProxy->mapToSource(m_tableProxy->index(next, 0)).row());
}
