#include "pages/MetadataPage.h"

#include "session/MetadataTreeModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

MetadataPage::MetadataPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_tree(new MetadataTreeModel(this)), m_proxy(new QSortFilterProxyModel(this)), m_view(new QTreeView(this)),
      m_filter(new QLineEdit(this)), m_filterDelay(new QTimer(this))
{
    const int keyCount = model ? static_cast<int>(model->metadata().size()) : 0;
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

    auto* count = new QLabel(tr("%1 keys").arg(keyCount), this);
    count->setObjectName(QStringLiteral("metadataCount"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(count);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
}

void MetadataPage::applyFilter()
{
    const QString text = m_filter->text().trimmed();
    m_proxy->setFilterFixedString(text);
    emit filterApplied(text);
}
