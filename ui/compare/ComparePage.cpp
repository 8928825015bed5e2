#include "ui/compare/ComparePage.h"

#include "ui/common/PageSearch.h"
#include "ui/output/OutputErrorTab.h"

#include "ui/common/ExportLocation.h"
#include "ui/common/RowDoubleClick.h"

#include "ui/session/BackgroundJob.h"
#include "ui/session/ComparisonExport.h"
#include "ui/session/ComparisonMetric.h"
#include "ui/session/TensorFigureStore.h"
#include "ui/session/ComparisonRun.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/session/ComparisonTotalsModel.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/session/ComparisonColumnTitle.h"
#include "ui/common/JobProgressBar.h"
#include "ui/compare/ColumnErrorTab.h"
#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/compare/CompareExpertsTab.h"
#include "ui/compare/LayerErrorChart.h"
#include "ui/compare/TensorErrorView.h"
#include "ui/imatrix/ColumnErrorView.h"
#include "core/compare/NothingCompared.h"
#include "core/imatrix/ImatrixForModel.h"
#include "core/types/GgmlType.h"
#include "ui/common/FileDialogs.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace {
constexpr int kFilterDebounceMs = 300;

// The tensor table's proxy, with each column's colour in its header and, in a cell whose tensor
// is stored in another type than its column's, a swatch of that type.
class ComparisonProxyModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison) { m_comparison = std::move(comparison); }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (role == Qt::DecorationRole && orientation == Qt::Horizontal && m_comparison && section >= ComparisonTableModel::FixedColumnCount
            && static_cast<std::size_t>(section - ComparisonTableModel::FixedColumnCount) < m_comparison->columns().size())
            return comparisonColumnSwatch(*m_comparison, static_cast<std::size_t>(section - ComparisonTableModel::FixedColumnCount));
        return QSortFilterProxyModel::headerData(section, orientation, role);
    }
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (role == Qt::DecorationRole && index.column() >= ComparisonTableModel::FixedColumnCount) {
            const QVariant type = QSortFilterProxyModel::data(index, ComparisonTableModel::CellTypeRole);
            return type.isNull() ? QVariant() : QVariant(quantTypeSwatch(type.toUInt()));
        }
        return QSortFilterProxyModel::data(index, role);
    }

private:
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
};
}  // namespace

ComparePage::ComparePage(std::vector<std::shared_ptr<const gguf::Model>> models, std::vector<std::uint32_t> simulatedTypes,
                         QWidget* parent, std::shared_ptr<gguf::ImportanceMatrix> importance)
    : QWidget(parent), m_problems(new QLabel(this)), m_status(new QLabel(this)), m_progress(new JobProgressBar(this)),
      m_tabs(new QTabWidget(this)), m_model(new ComparisonTableModel(this)), m_totalsModel(new ComparisonTotalsModel(this)), m_proxy(new ComparisonProxyModel(this)),
      m_chart(new LayerErrorChart(this)), m_tensorView(new TensorErrorView(m_progress, this)),
      m_columnTab(new ColumnErrorTab(this)), m_expertsTab(new CompareExpertsTab(this))
{
    m_columnTab->setProgressBar(m_progress);  // its job gets the page's Cancel, like the tensor view's
    m_problems->setObjectName(QStringLiteral("problemsLabel"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_tabs->setObjectName(QStringLiteral("compareTabs"));
    auto* tableTab = new QWidget(m_tabs);
    buildTableTab(tableTab);
    m_tabs->addTab(tableTab, tr("Table"));
    m_tabs->addTab(m_chart, tr("Per layer"));
    m_tabs->addTab(m_tensorView, tr("Tensor"));
    m_tabs->addTab(m_columnTab, tr("Columns"));
    m_tabs->addTab(m_expertsTab, tr("Experts"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_problems);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    layout->addWidget(m_tabs, 1);

    gguf::ComparisonOptions options;
    options.simulatedTypes = std::move(simulatedTypes);
    QStringList importanceIssues;
    if (importance) {
        // The reference decides the shapes the matrix must fit: find it as the comparison will
        // (pairing tensors reads no data, so this costs what the comparison below costs). A
        // simulated column that needs no weights lets one file alone pair, as `compare` probes it.
        gguf::ComparisonOptions probeOptions;
        probeOptions.simulatedTypes = {gguf::typeIdValue(gguf::GgmlTypeId::Q8_0)};
        auto probe = gguf::ModelComparison::create(models, probeOptions);
        if (probe) {
            // What every user of a matrix is told (core/imatrix/ImatrixForModel.h) first, then
            // the findings it comes from.
            const auto fit = gguf::fitImatrixToModel(*importance, probe->reference());
            if (!fit) {
                importanceIssues << QString::fromStdString(fit.error().toString());
            } else {
                for (const std::string& warning : fit->warnings())
                    importanceIssues << QString::fromStdString(warning);
                for (const gguf::ImatrixIssue& issue : fit->validation.issues)
                    if (issue.severity != gguf::ImatrixSeverity::Note)
                        importanceIssues << QString::fromStdString(issue.toString());
            }
        }
        // Simulated columns then quantize as llama-quantize --imatrix: each expert's rows with its weights.
        options.importance = importance;
    }
    auto created = gguf::ModelComparison::create(std::move(models), options);
    // As the CLI: a comparison without one comparable pair (two different models) is refused,
    // not shown as a table of "missing" rows.
    const QString refusal = !created                               ? QString::fromStdString(created.error().toString())
                          : !gguf::hasComparableCell(created.value()) ? tr("no tensor could be compared: %1")
                                                                          .arg(QString::fromStdString(gguf::whyNothingCompared(created.value())))
                                                                    : QString();
    if (!refusal.isEmpty()) {
        m_problems->setText(tr("<b>Cannot compare:</b> %1").arg(refusal.toHtmlEscaped()));
        m_tabs->setEnabled(false);
        QMetaObject::invokeMethod(this, [this, error = m_problems->text()]() { emit comparisonFinished(false, error); },
                                  Qt::QueuedConnection);
        return;
    }
    m_comparison = std::make_shared<const gguf::ModelComparison>(std::move(created).value());
    m_model->setComparison(m_comparison);
    m_totalsModel->setComparison(m_comparison);
    static_cast<ComparisonProxyModel*>(m_proxy)->setComparison(m_comparison);
    m_tensorView->setComparison(m_comparison);
    m_columnTab->setComparison(m_comparison);
    m_expertsTab->setComparison(m_comparison);

    QStringList lines;
    // File names, as the tabs show them; the whole paths are in the tool tip.
    const QString referencePath = QString::fromStdString(m_comparison->reference().primary().path());
    QStringList paths{tr("Reference: %1").arg(referencePath)};
    lines << tr("<b>Reference:</b> %1").arg(QFileInfo(referencePath).fileName().toHtmlEscaped());
    if (importance) {
        const QString importancePath = QString::fromStdString(importance->path());
        paths << tr("Importance matrix: %1").arg(importancePath);
        lines << tr("<b>Importance matrix:</b> %1 (simulated columns quantized with it; weighted figures in the metric lists)")
                     .arg(QFileInfo(importancePath).fileName().toHtmlEscaped());
    }
    m_problems->setToolTip(paths.join(QLatin1Char('\n')));
    constexpr int kShownImportanceIssues = 8;
    for (int i = 0; i < importanceIssues.size() && i < kShownImportanceIssues; ++i)
        lines << QStringLiteral("⚠ ") + importanceIssues[i].toHtmlEscaped();
    if (importanceIssues.size() > kShownImportanceIssues)
        lines << tr("⚠ … and %n more importance matrix problem(s)", nullptr, static_cast<int>(importanceIssues.size() - kShownImportanceIssues));
    for (const std::string& problem : m_comparison->problems())
        lines << QStringLiteral("⚠ ") + QString::fromStdString(problem).toHtmlEscaped();
    if (m_comparison->importance()) {
        const QSignalBlocker blocker(m_metric);
        for (std::size_t i = comparisonMetrics().size(); i < comparisonMetricsWithImportance().size(); ++i)
            m_metric->addItem(comparisonMetricsWithImportance()[i].displayName());
    }
    m_problems->setText(lines.join(QStringLiteral("<br>")));

    m_run = new ComparisonRun(m_comparison, this);
    connect(m_run, &ComparisonRun::finished, this, &ComparePage::showResults);
    connect(m_run, &ComparisonRun::failed, this, [this](const JobOutcome& outcome, std::shared_ptr<const gguf::ComparisonResults> finishedCells) {
        // The cells finished before the end stay: a server that stops answering mid-run does
        // not cost the tensors already done.
        const QString stopped = outcome.isCancelled() ? tr("the comparison was cancelled") : tr("the comparison failed");
        m_model->setStopped(stopped);
        const std::size_t computed = finishedCells ? computedCells(*finishedCells) : 0;
        if (computed > 0)
            showCells(std::move(finishedCells));
        QString why = outcome.message();
        while (why.endsWith(QLatin1Char('.')))
            why.chop(1);
        QString text = outcome.isCancelled() ? tr("Comparison cancelled.") : tr("Comparison failed: %1.").arg(why);
        if (computed > 0)
            text += QLatin1Char(' ') + tr("%n cell(s) computed before it stopped are shown; the totals cover those only.", nullptr, static_cast<int>(computed));
        m_status->setText(text);
        emit comparisonFinished(false, outcome.message());
    });
    m_run->start();
    m_tabs->addTab(new OutputErrorTab(*m_comparison, m_tabs), tr("Output"));  // forward pass: KLD, drift, flips
    m_progress->track(m_run->job(), tr("Comparing %1 tensors").arg(m_comparison->rows().size()));
    m_status->setText(tr("Computing…"));
}

void ComparePage::buildTableTab(QWidget* tab)
{
    m_filter = new QLineEdit(tab);
    m_filter->setObjectName(QStringLiteral("filterEdit"));
    markPageSearch(m_filter);
    m_filter->setPlaceholderText(tr("Filter tensors (regular expression)"));
    m_filter->setClearButtonEnabled(true);
    m_filterDebounce = new QTimer(this);
    m_filterDebounce->setSingleShot(true);
    m_filterDebounce->setInterval(kFilterDebounceMs);
    connect(m_filter, &QLineEdit::textChanged, m_filterDebounce, qOverload<>(&QTimer::start));
    connect(m_filterDebounce, &QTimer::timeout, this, &ComparePage::applyFilter);

    m_metric = new QComboBox(tab);
    m_metric->setObjectName(QStringLiteral("metricCombo"));
    for (const ComparisonMetric& metric : comparisonMetrics())
        m_metric->addItem(metric.displayName());
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_model->setMetric(index);
        m_totalsModel->setMetric(index);
        m_proxy->invalidate();  // the sort keys changed
    });

    auto* exportButton = new QPushButton(tr("Export…"), tab);
    exportButton->setObjectName(QStringLiteral("exportButton"));
    connect(exportButton, &QPushButton::clicked, this, &ComparePage::chooseExport);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ComparisonTableModel::SortRole);
    m_proxy->setFilterKeyColumn(ComparisonTableModel::TensorColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table = new SharedColumnsTableView(tab);
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // file order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ComparePage::showSelectedTensor);
    onRowDoubleClicked(m_table, [this](const QModelIndex&) { m_tabs->setCurrentWidget(m_tensorView); });

    // The totals under the tensors, column for column: same widths, same horizontal scroll.
    m_totals = new QTableView(tab);
    m_totals->setObjectName(QStringLiteral("totalsTable"));
    m_totals->setModel(m_totalsModel);
    m_totals->horizontalHeader()->hide();
    m_totals->verticalHeader()->hide();
    m_totals->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_totals->setSelectionMode(QAbstractItemView::SingleSelection);
    m_totals->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_totals->setToolTip(tr("All computed tensors together, and all tensors of each kind"));
    // The widths fit the totals too ("all ffn_gate_inp_shexp"), also while the filter hides
    // every tensor of a kind; the totals follow them.
    m_table->shareColumnsWith(m_totals);
    connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, m_totals, [this](int section, int, int size) {
        m_totals->horizontalHeader()->resizeSection(section, size);
    });
    connect(m_totalsModel, &QAbstractItemModel::dataChanged, m_table, &QTableView::resizeColumnsToContents);  // another metric
    connect(m_table->horizontalScrollBar(), &QScrollBar::valueChanged, m_totals->horizontalScrollBar(), &QScrollBar::setValue);
    connect(m_totalsModel, &QAbstractItemModel::modelReset, this, [this]() {
        m_table->resizeColumnsToContents();
        for (int section = 0; section < m_table->horizontalHeader()->count(); ++section)
            m_totals->horizontalHeader()->resizeSection(section, m_table->horizontalHeader()->sectionSize(section));
        const int rows = m_totalsModel->rowCount();
        const int height = rows == 0 ? 0 : m_totals->verticalHeader()->length() + 2 * m_totals->frameWidth();
        m_totals->setMaximumHeight(std::max(height, 0));
        m_totals->setVisible(rows > 0);
    });
    m_totals->hide();

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_filter, 1);
    controls->addWidget(new QLabel(tr("Metric:"), tab));
    controls->addWidget(m_metric);
    controls->addWidget(exportButton);
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_totals);
}

bool ComparePage::isComputing() const
{
    return m_run && m_run->isRunning();
}

void ComparePage::cancel()
{
    if (m_run)
        m_run->cancel();
}

QString ComparePage::title() const
{
    if (!m_comparison)
        return tr("Compare");
    return tr("Compare: %1").arg(QFileInfo(QString::fromStdString(m_comparison->reference().primary().path())).fileName());
}

void ComparePage::applyFilter()
{
    // A pattern that is not a valid expression is taken as plain text, so typing never errors.
    const QString text = m_filter->text();
    const QRegularExpression pattern(text, QRegularExpression::CaseInsensitiveOption);
    if (pattern.isValid())
        m_proxy->setFilterRegularExpression(pattern);
    else
        m_proxy->setFilterFixedString(text);
}

std::size_t ComparePage::computedCells(const gguf::ComparisonResults& results)
{
    std::size_t computed = 0;
    for (const std::size_t count : results.columnTensorCounts)
        computed += count;
    return computed;
}

void ComparePage::showCells(std::shared_ptr<const gguf::ComparisonResults> results)
{
    m_results = std::move(results);
    m_model->setResults(m_results);
    m_totalsModel->setResults(m_results);
    m_proxy->invalidate();
    m_chart->setComparison(m_comparison, m_results);
    m_tensorView->setResults(m_results);
    m_expertsTab->setResults(m_results);
}

void ComparePage::showResults(std::shared_ptr<const gguf::ComparisonResults> results)
{
    showCells(std::move(results));
    m_status->setText(tr("%n cell(s) computed.", nullptr, static_cast<int>(computedCells(*m_results))));
    // Each column's errors colour the graph of the file it measured.
    TensorFigureStore::instance().publish(weightErrorFigures(*m_comparison, *m_results));
    emit comparisonFinished(true, {});
}

void ComparePage::showSelectedTensor()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!current.isValid())
        return;
    const auto row = static_cast<std::size_t>(current.row());
    m_tensorView->setTensorRow(row);
    m_columnTab->setTensorRow(row);
    m_expertsTab->setTensorRow(row);
}

ColumnErrorView* ComparePage::columnErrorView() const
{
    return m_columnTab->view();
}

QString ComparePage::exportCsv(const QString& path) const
{
    if (!m_comparison || !m_results)
        return tr("The comparison has not finished.");
    return exportComparisonCsv(*m_comparison, *m_results, path);
}

QString ComparePage::exportJson(const QString& path) const
{
    if (!m_comparison || !m_results)
        return tr("The comparison has not finished.");
    return exportComparisonJson(*m_comparison, *m_results, path);
}

void ComparePage::chooseExport()
{
    QString filter;
    const QString reference = m_comparison ? QString::fromStdString(m_comparison->reference().primary().path()) : QString();
    const QString proposed = proposedExportPath(reference, QFileInfo(reference).completeBaseName() + QStringLiteral(".comparison.csv"));
    const QString path = askSaveFileName(this, tr("Export Comparison"), proposed, tr("CSV (*.csv);;JSON (*.json)"), &filter);
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) || filter.contains(QLatin1String("json"));
    const QString error = json ? exportJson(path) : exportCsv(path);
    emit exportFinished(error.isEmpty(), error.isEmpty() ? tr("Exported the comparison to %1").arg(path) : error);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export Comparison"), error);
}
