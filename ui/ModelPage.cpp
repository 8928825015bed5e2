#include "ModelPage.h"

#include "HumanFormat.h"
#include "MetadataTableModel.h"
#include "TensorTableModel.h"
#include "TensorViewPage.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace {
constexpr int kFilterDebounceMs = 300;

QTableView* createTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    return view;
}
}  // namespace

ModelPage::ModelPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_metadata(new MetadataTableModel(this)), m_tensors(new TensorTableModel(this)),
      m_tensorProxy(new QSortFilterProxyModel(this)), m_filter(new QLineEdit(this)), m_filterDebounce(new QTimer(this))
{
    m_metadata->setModel(m_model);
    m_tensors->setModel(m_model);
    m_tensorProxy->setSourceModel(m_tensors);
    m_tensorProxy->setSortRole(TensorTableModel::SortRole);
    m_tensorProxy->setFilterKeyColumn(TensorTableModel::Name);

    m_filter->setPlaceholderText(tr("Filter tensors (substring or regular expression)"));
    m_filter->setClearButtonEnabled(true);
    m_filterDebounce->setSingleShot(true);
    m_filterDebounce->setInterval(kFilterDebounceMs);
    connect(m_filter, &QLineEdit::textChanged, m_filterDebounce, qOverload<>(&QTimer::start));
    connect(m_filterDebounce, &QTimer::timeout, this, &ModelPage::applyFilter);

    auto* tensorPane = new QWidget(this);
    auto* tensorLayout = new QVBoxLayout(tensorPane);
    tensorLayout->setContentsMargins(0, 0, 0, 0);
    tensorLayout->addWidget(m_filter);
    QTableView* tensorView = createTable(m_tensorProxy, tensorPane);
    tensorView->setSortingEnabled(true);
    tensorView->sortByColumn(TensorTableModel::Offset, Qt::AscendingOrder);
    tensorView->setObjectName(QStringLiteral("tensorView"));
    tensorLayout->addWidget(tensorView);
    m_tensorPage = new TensorViewPage(this);
    connect(tensorView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        const QModelIndex source = m_tensorProxy->mapToSource(current);
        m_tensorPage->setTensor(m_model, source.isValid() ? &m_model->tensors()[static_cast<std::size_t>(source.row())] : nullptr);
    });
    connect(m_tensorPage, &TensorViewPage::exportFinished, this, &ModelPage::statusMessage);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("tensorSplitter"));
    splitter->addWidget(tensorPane);
    splitter->addWidget(m_tensorPage);
    splitter->setStretchFactor(1, 2);

    auto* tabs = new QTabWidget(this);
    tabs->addTab(splitter, tr("Tensors"));
    QTableView* metadataView = createTable(m_metadata, tabs);
    metadataView->setObjectName(QStringLiteral("metadataView"));
    tabs->addTab(metadataView, tr("Metadata"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(createSummary());
    layout->addWidget(tabs, 1);
}

QWidget* ModelPage::createSummary()
{
    const gguf::ModelSummary summary = m_model->summary();
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    auto text = [](const std::string& s) { return s.empty() ? tr("(not set)") : QString::fromStdString(s); };
    form->addRow(tr("Name:"), new QLabel(text(summary.name), box));
    form->addRow(tr("Architecture:"), new QLabel(text(summary.architecture), box));
    form->addRow(tr("Parameters:"), new QLabel(QStringLiteral("%1 (%2)").arg(QString::fromStdString(gguf::formatCount(summary.parameterCount)),
                                                                             QString::fromStdString(gguf::formatGrouped(summary.parameterCount))), box));
    form->addRow(tr("File size:"), new QLabel(tr("%1 in %n file(s)", nullptr, static_cast<int>(m_model->shards().size()))
                                                  .arg(QString::fromStdString(gguf::formatBytes(summary.fileSize))), box));
    form->addRow(tr("Bits per weight:"), new QLabel(QString::number(summary.averageBitsPerWeight, 'f', 3), box));
    const gguf::GgufFile& primary = m_model->primary();
    form->addRow(tr("Format:"), new QLabel(tr("GGUF v%1, %2-endian, alignment %3")
                                               .arg(primary.version())
                                               .arg(primary.bigEndian() ? tr("big") : tr("little"))
                                               .arg(primary.alignment()), box));
    return box;
}

void ModelPage::applyFilter()
{
    const QString text = m_filter->text();
    QRegularExpression pattern(text, QRegularExpression::CaseInsensitiveOption);
    // Text that is not a valid expression is taken literally, so typing "blk.0.(" never hides everything.
    if (!pattern.isValid())
        pattern.setPattern(QRegularExpression::escape(text));
    m_tensorProxy->setFilterRegularExpression(pattern);
}
