#include "ui/imatrix/ImatrixPage.h"

#include "core/base/EscapedText.h"
#include "core/imatrix/ImatrixSums.h"
#include "core/imatrix/ImatrixWriter.h"
#include "ui/common/FileDialogs.h"
#include "ui/imatrix/ExpertRoutingMap.h"
#include "ui/imatrix/ImatrixStatisticsView.h"
#include "ui/imatrix/ImportanceStrip.h"
#include "ui/session/TensorFigureStore.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {

QString text(const std::string& s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QTableWidgetItem* numberItem(double value, int decimals)
{
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, decimals == 0 ? QVariant(static_cast<qlonglong>(value)) : QVariant(QString::number(value, 'f', decimals)));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

}  // namespace

ImatrixPage::ImatrixPage(std::shared_ptr<const LoadedImatrix> imatrix, QWidget* parent)
    : QWidget(parent), m_imatrix(std::move(imatrix)), m_summary(new QLabel(this)), m_issues(new QListWidget(this)),
      m_coverage(new QTableWidget(this)), m_routing(new ExpertRoutingMap(this)), m_tensor(new QComboBox(this)),
      m_columns(new ImportanceStrip(this)),
      m_statistics(new ImatrixStatisticsView(m_imatrix->statistics, QFileInfo(text(m_imatrix->matrix->path())).fileName(), this)),
      m_saveAs(new QPushButton(tr("Save As…"), this)), m_saveStatus(new QLabel(this))
{
    setObjectName(QStringLiteral("imatrixPage"));
    m_summary->setObjectName(QStringLiteral("imatrixSummary"));
    m_issues->setObjectName(QStringLiteral("imatrixIssues"));
    m_coverage->setObjectName(QStringLiteral("imatrixCoverage"));
    m_tensor->setObjectName(QStringLiteral("imatrixTensor"));
    // Its totals colour the graph of the model it was checked against.
    TensorFigureStore::instance().publish(importanceFigures(*m_imatrix));
    const gguf::ImportanceMatrix& matrix = *m_imatrix->matrix;
    const gguf::ImatrixValidation& validation = m_imatrix->validation;

    QStringList datasets;
    for (const std::string& d : matrix.datasets())
        datasets << text(d).toHtmlEscaped();
    QString fit = m_imatrix->modelPath.isEmpty()
                      ? tr("not checked against a model")
                      : tr("against %1: %2 of %3 entries match a tensor, %4 error(s), %5 warning(s); %6 matrices of the model have no importance")
                            .arg(QFileInfo(m_imatrix->modelPath).fileName().toHtmlEscaped())
                            .arg(validation.matchedEntries)
                            .arg(matrix.entries().size())
                            .arg(validation.count(gguf::ImatrixSeverity::Error))
                            .arg(validation.count(gguf::ImatrixSeverity::Warning))
                            .arg(validation.uncoveredTensors.size());
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setText(tr("<b>%1</b> — %2, %3 entries, %4 chunks%5<br>datasets: %6<br>%7")
                           .arg(QFileInfo(text(matrix.path())).fileName().toHtmlEscaped(),
                                matrix.format() == gguf::ImatrixFormat::Gguf ? tr("GGUF format") : tr("legacy .dat format"))
                           .arg(matrix.entries().size())
                           .arg(matrix.chunkCount())
                           .arg(matrix.chunkSize() > 0 ? tr(" of %1 tokens").arg(matrix.chunkSize()) : QString())
                           .arg(datasets.isEmpty() ? tr("(none recorded)") : datasets.join(QStringLiteral(", ")), fit));

    for (const gguf::ImatrixIssue& issue : validation.issues) {
        auto* item = new QListWidgetItem(text(issue.toString()), m_issues);
        if (issue.severity == gguf::ImatrixSeverity::Error)
            item->setForeground(QColor(180, 20, 20));
    }
    if (!validation.uncoveredTensors.empty()) {
        QStringList names;
        for (const std::string& name : validation.uncoveredTensors)
            names << text(name);
        new QListWidgetItem(tr("no importance (quantized blind): %1").arg(names.join(QStringLiteral(", "))), m_issues);
    }
    if (m_issues->count() == 0)
        new QListWidgetItem(tr("no findings"), m_issues);

    const bool gguf = matrix.format() == gguf::ImatrixFormat::Gguf;
    m_coverage->setColumnCount(5);
    m_coverage->setHorizontalHeaderLabels({tr("Tensor"), tr("Columns"), tr("Experts"), gguf ? tr("Tokens") : tr("ncall"), tr("Chunks")});
    m_coverage->horizontalHeaderItem(1)->setToolTip(tr("Input columns of the weight: one importance value each"));
    m_coverage->horizontalHeaderItem(2)->setToolTip(tr("Experts the entry keeps importance for (1 for a dense tensor)"));
    m_coverage->horizontalHeaderItem(3)->setToolTip(
        gguf ? tr("Tokens: how many calibration tokens reached the weight (the entry's largest count; for an expert "
                  "tensor, its busiest expert). Its importance is a mean over that many activations.")
             : tr("ncall: how many times llama-imatrix added activations to the entry. The legacy format keeps no token "
                  "count, so the tokens behind it are unknown."));
    m_coverage->horizontalHeaderItem(4)->setToolTip(
        gguf ? tr("Chunks: the tokens counted in calibration chunks (tokens ÷ the chunk size, %1 tokens; llama-imatrix "
                  "--chunk-size). A fraction is a part of a chunk: an expert routed for some tokens only.")
                   .arg(matrix.chunkSize())
             : tr("Chunks: ncall, the calibration chunks that reached the entry (the legacy format counts calls, not tokens)."));
    m_coverage->setRowCount(static_cast<int>(matrix.entries().size()));
    m_coverage->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_coverage->verticalHeader()->setVisible(false);
    for (std::size_t i = 0; i < matrix.entries().size(); ++i) {
        const gguf::ImportanceEntry& entry = matrix.entries()[i];
        const gguf::EntryCoverage& c = m_imatrix->coverage[i];
        const int row = static_cast<int>(i);
        m_coverage->setItem(row, 0, new QTableWidgetItem(text(entry.name)));
        m_coverage->setItem(row, 1, numberItem(static_cast<double>(entry.columnCount()), 0));
        m_coverage->setItem(row, 2, numberItem(static_cast<double>(entry.expertCount()), 0));
        m_coverage->setItem(row, 3, numberItem(entry.legacy ? entry.legacyCalls : c.tokens, 0));
        m_coverage->setItem(row, 4, numberItem(c.chunks, 2));
        m_tensor->addItem(text(entry.name));
    }
    m_coverage->resizeColumnsToContents();
    m_coverage->setSortingEnabled(true);

    m_routing->setRouting(m_imatrix->routing);

    auto* columnsTab = new QWidget(this);
    auto* columnsLayout = new QVBoxLayout(columnsTab);
    columnsLayout->addWidget(m_tensor);
    columnsLayout->addWidget(m_columns, 1);
    auto* tabs = new QTabWidget(this);
    tabs->setObjectName(QStringLiteral("imatrixTabs"));
    tabs->addTab(m_coverage, tr("Coverage"));
    tabs->addTab(m_routing, tr("Expert routing"));
    tabs->addTab(columnsTab, tr("Top columns"));
    tabs->addTab(m_statistics, tr("Statistics"));
    // A MoE matrix opens on its routing map: the experts it left blind are the first thing to see.
    if (m_imatrix->routing.known())
        tabs->setCurrentWidget(m_routing);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_issues);
    split->addWidget(tabs);
    split->setStretchFactor(1, 4);
    m_saveAs->setObjectName(QStringLiteral("imatrixSaveAs"));
    m_saveAs->setToolTip(tr("Write the matrix again as llama-imatrix writes it: GGUF, or its legacy .dat"));
    connect(m_saveAs, &QPushButton::clicked, this, &ImatrixPage::chooseSaveAs);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_saveAs, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_saveStatus);
    layout->addWidget(split, 1);
    m_saveStatus->hide();

    connect(m_tensor, qOverload<int>(&QComboBox::currentIndexChanged), this, &ImatrixPage::showEntry);
    m_columns->setImatrix(m_imatrix);
    showEntry(m_tensor->currentIndex());
}

QString ImatrixPage::title() const
{
    return tr("Importance: %1").arg(QFileInfo(text(m_imatrix->matrix->path())).fileName());
}

void ImatrixPage::showEntry(int index)
{
    const auto& entries = m_imatrix->matrix->entries();
    if (index < 0 || static_cast<std::size_t>(index) >= entries.size())
        return;
    m_columns->showEntry(entries[static_cast<std::size_t>(index)], std::nullopt);
}

void ImatrixPage::chooseSaveAs()
{
    const QFileInfo current(text(m_imatrix->matrix->path()));
    const QString path = askSaveFileName(this, tr("Save importance matrix as"), current.absolutePath(),
                                         tr("Importance matrix, GGUF (*.gguf);;Legacy llama-imatrix .dat (*.dat)"));
    if (!path.isEmpty())
        saveAs(path);
}

void ImatrixPage::saveAs(const QString& path)
{
    // llama-imatrix's chunk size when its run gave none (a .dat records none): -c 512.
    constexpr std::int64_t kDefaultChunk = 512;
    m_saveAs->setEnabled(false);
    m_saveStatus->show();
    m_saveStatus->setText(tr("Saving %1…").arg(QFileInfo(path).fileName()));
    m_saveJobs.run(
        [matrix = m_imatrix->matrix, path](const JobControl&) -> gguf::Result<QString> {
            const std::int64_t chunk = matrix->chunkSize() > 0 ? matrix->chunkSize() : kDefaultChunk;
            auto sums = gguf::sumsOf(*matrix, chunk);
            if (!sums)
                return sums.error();
            const std::string file = path.toStdString();
            auto notes = gguf::writeImatrix(*sums, chunk, gguf::imatrixFormatForPath(file), file);
            if (!notes)
                return notes.error();
            QStringList said;
            if (!notes->perExpertCountsDropped.empty())
                said << tr("the per-expert token counts of %1 matrices are not kept").arg(notes->perExpertCountsDropped.size());
            if (!notes->skippedNoData.empty())
                said << tr("%1 matrices without tokens are left out").arg(notes->skippedNoData.size());
            if (matrix->chunkSize() <= 0)
                said << tr("the .dat records no chunk size: counts assume llama-imatrix's default of 512 tokens");
            return said.join(QStringLiteral("; "));
        },
        [this, path](const QString& notes) {
            m_saveAs->setEnabled(true);
            m_saveStatus->setText(notes.isEmpty() ? tr("Saved %1").arg(QFileInfo(path).fileName())
                                                  : tr("Saved %1 — %2").arg(QFileInfo(path).fileName(), notes));
            emit saved(true, notes);
        },
        [this](const JobOutcome& outcome) {
            m_saveAs->setEnabled(true);
            m_saveStatus->setText(tr("Not saved: %1").arg(QString::fromStdString(gguf::escapeForDisplay(outcome.message().toStdString()))));
            emit saved(false, outcome.message());
        });
}
