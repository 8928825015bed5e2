#include "pages/MetadataPage.h"

#include "common/CopySelection.h"
#include "session/MetadataTreeModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace {
// The key filter, which also shows what coded values stand for next to the number
// ("15 (MOSTLY_Q4_K_M)"); the tree model itself keeps the bare value in its display text.
class MetadataFilterModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QVariant data(const QModelIndex& index, int role) const override
    {
        QVariant value = QSortFilterProxyModel::data(index, role);
        if (role == Qt::DisplayRole && index.column() == MetadataTreeModel::Value) {
            const QVariant meaning = QSortFilterProxyModel::data(index, MetadataTreeModel::ValueMeaningRole);
            if (meaning.isValid())
                return QStringLiteral("%1 (%2)").arg(value.toString(), meaning.toString());
        }
        return value;
    }
};
}  // namespace

MetadataPage::MetadataPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_tree(new MetadataTreeModel(this)), m_proxy(new MetadataFilterModel(this)), m_view(new QTreeView(this)),
      m_filter(new QLineEdit(this)), m_filterDelay(new QTimer(this)), m_tailCheck(new QTimer(this)), m_count(new QLabel(this)),
      m_jumpIndex(new QSpinBox(this)), m_jumpButton(new QPushButton(tr("Go to index"), this))
{
    m_keyCount = model ? static_cast<int>(model->metadata().size()) : 0;
    m_tree->setModel(std::move(model));

    // Filter on the key of top-level rows only (the model gives elements no filter text), keep
    // parents of matches and, once a key matches, all of its elements.
    m_proxy->setSourceModel(m_tree);
    m_proxy->setFilterKeyColumn(MetadataTreeModel::Key);
    m_proxy->setFilterRole(MetadataTreeModel::KeyFilterRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setAutoAcceptChildRows(true);

    m_view->setObjectName(QStringLiteral("metadataTree"));
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);  // lets the view skip measuring thousands of element rows
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setStretchLastSection(true);
    m_view->setColumnWidth(MetadataTreeModel::Key, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 42);
    m_view->setColumnWidth(MetadataTreeModel::Type, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 14);

    m_filter->setObjectName(QStringLiteral("metadataFilter"));
    m_filter->setPlaceholderText(tr("Filter keys"));
    m_filter->setClearButtonEnabled(true);
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(kFilterDelayMs);
    connect(m_filter, &QLineEdit::textChanged, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filterDelay, &QTimer::timeout, this, &MetadataPage::applyFilter);

    m_count->setObjectName(QStringLiteral("metadataCount"));
    updateKeyCount();
    installCopyAction(m_view);

    // Checked after the view has laid out the rows a scroll, expansion or insertion brought in;
    // never from inside the model's own change signals.
    m_tailCheck->setSingleShot(true);
    m_tailCheck->setInterval(0);
    connect(m_tailCheck, &QTimer::timeout, this, &MetadataPage::fetchVisibleTails);
    // The timer is the receiver, not the page: the view's scroll bar still signals while ~QWidget
    // deletes it, when the page is no longer a MetadataPage.
    const auto checkTails = qOverload<>(&QTimer::start);
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, m_tailCheck, checkTails);
    connect(m_view->verticalScrollBar(), &QScrollBar::rangeChanged, m_tailCheck, checkTails);
    connect(m_view, &QTreeView::expanded, m_tailCheck, checkTails);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, m_tailCheck, checkTails);

    m_jumpIndex->setObjectName(QStringLiteral("metadataJumpIndex"));
    m_jumpIndex->setToolTip(tr("Element index in the selected array"));
    m_jumpButton->setObjectName(QStringLiteral("metadataJumpButton"));
    connect(m_jumpButton, &QPushButton::clicked, this, [this] { jumpToElement(currentArray(), m_jumpIndex->value()); });
    connect(m_jumpIndex, &QSpinBox::editingFinished, this, [this] {
        if (m_jumpIndex->hasFocus())
            jumpToElement(currentArray(), m_jumpIndex->value());
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &MetadataPage::updateJumpBox);
    updateJumpBox();

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_count);
    top->addWidget(m_jumpIndex);
    top->addWidget(m_jumpButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
}

void MetadataPage::applyFilter()
{
    const QString text = m_filter->text().trimmed();
    m_proxy->setFilterFixedString(text);
    updateKeyCount();
    emit filterApplied(text);
}

void MetadataPage::updateKeyCount()
{
    const int shown = m_proxy->rowCount();
    m_count->setText(m_filter->text().trimmed().isEmpty() ? tr("%1 keys").arg(m_keyCount) : tr("%1 of %2 keys").arg(shown).arg(m_keyCount));
}

QModelIndex MetadataPage::currentArray() const
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex()).siblingAtColumn(0);
    if (!current.isValid())
        return {};
    if (m_tree->arrayLength(current) > 0)
        return current;
    const QModelIndex parent = current.parent();
    return m_tree->arrayLength(parent) > 0 ? parent : QModelIndex();
}

void MetadataPage::updateJumpBox()
{
    const QModelIndex array = currentArray();
    const qint64 length = m_tree->arrayLength(array);
    m_jumpIndex->setEnabled(length > 0);
    m_jumpButton->setEnabled(length > 0);
    m_jumpIndex->setRange(0, static_cast<int>(std::max<qint64>(0, length - 1)));
}

bool MetadataPage::jumpToElement(const QModelIndex& array, int element)
{
    if (!m_tree->loadThrough(array, element))
        return false;
    const QModelIndex target = m_proxy->mapFromSource(m_tree->index(element, MetadataTreeModel::Key, array));
    if (!target.isValid())
        return false;
    for (QModelIndex parent = target.parent(); parent.isValid(); parent = parent.parent())
        m_view->expand(parent);
    m_view->setCurrentIndex(target);
    m_view->scrollTo(target, QAbstractItemView::PositionAtCenter);
    return true;
}

void MetadataPage::fetchVisibleTails()
{
    const int bottom = m_view->viewport()->height();
    for (QModelIndex row = m_view->indexAt(QPoint(0, 0)); row.isValid(); row = m_view->indexBelow(row)) {
        if (m_view->visualRect(row).top() > bottom)
            break;
        const QModelIndex parent = row.parent();
        if (parent.isValid() && row.row() == m_proxy->rowCount(parent) - 1 && m_proxy->canFetchMore(parent)) {
            m_proxy->fetchMore(parent);
            return;  // the insertion schedules the next check
        }
    }
}
