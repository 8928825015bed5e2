#include "ui/recipe/SensitivityView.h"

#include "ui/session/ScanProbeListModel.h"
#include "ui/session/TensorFigureStore.h"

#include "core/base/EscapedText.h"
#include "core/sensitivity/ScanComparison.h"
#include "core/sensitivity/ScanFile.h"
#include "core/sensitivity/ScanGrid.h"
#include "core/types/GgmlType.h"
#include "core/write/ByteSink.h"
#include "ui/common/ExportLocation.h"
#include "ui/common/PlotExport.h"
#include "ui/recipe/ScanHeatmapPlot.h"
#include "ui/recipe/ScanRunPanel.h"
#include "ui/common/FileDialogs.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace {

// Rows in each of the two lists: the extremes, not the whole scan (the CSV has every probe).
constexpr std::size_t kListedGroups = 12;

// A list of probes: a view of its own session model (the model is the view's child).
QTableView* makeList(const QString& name, QWidget* parent)
{
    auto* table = new QTableView(parent);
    table->setObjectName(name);
    table->setModel(new ScanProbeListModel(table));
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return table;
}

gguf::Status writeBytes(const QString& path, const std::string& bytes)
{
    auto sink = gguf::openOutputFile(path.toStdString());
    gguf::Status status = sink ? (*sink)->write(bytes.data(), bytes.size()) : gguf::Status(sink.error());
    if (status)
        status = (*sink)->commit();
    return status;
}

}  // namespace

SensitivityView::SensitivityView(std::shared_ptr<const gguf::Model> model, QWidget* parent) : QWidget(parent), m_model(std::move(model))
{
    auto* layout = new QVBoxLayout(this);
    m_run = new ScanRunPanel(m_model, this);
    layout->addWidget(m_run);
    auto* controls = new QHBoxLayout;
    m_open = new QPushButton(tr("Open Scan File…"), this);
    m_open->setObjectName(QStringLiteral("openScan"));
    controls->addWidget(m_open);
    controls->addWidget(new QLabel(tr("Type:"), this));
    m_type = new QComboBox(this);
    m_type->setObjectName(QStringLiteral("scanType"));
    controls->addWidget(m_type);
    m_exportPlot = new QPushButton(tr("Export Heatmap…"), this);
    m_exportPlot->setObjectName(QStringLiteral("exportScanHeatmap"));
    m_exportCsv = new QPushButton(tr("Export Figures (CSV)…"), this);
    m_exportCsv->setObjectName(QStringLiteral("exportScanFigures"));
    controls->addWidget(m_exportPlot);
    controls->addWidget(m_exportCsv);
    controls->addStretch(1);
    layout->addLayout(controls);
    m_summary = new QLabel(tr("No scan: open a scan file or run one."), this);
    m_summary->setObjectName(QStringLiteral("scanSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_heatmap = new ScanHeatmapPlot(split);
    auto* lists = new QWidget(split);
    auto* listLayout = new QVBoxLayout(lists);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addWidget(new QLabel(tr("Most sensitive at this type:"), lists));
    m_most = makeList(QStringLiteral("mostSensitive"), lists);
    listLayout->addWidget(m_most, 1);
    listLayout->addWidget(new QLabel(tr("Least sensitive at this type:"), lists));
    m_least = makeList(QStringLiteral("leastSensitive"), lists);
    listLayout->addWidget(m_least, 1);
    split->addWidget(m_heatmap);
    split->addWidget(lists);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    for (QPushButton* button : {m_exportPlot, m_exportCsv})
        button->setEnabled(false);

    const QString modelPath = QString::fromStdString(m_model->primary().path());
    connect(m_open, &QPushButton::clicked, this, [this, modelPath]() {
        const QString path = askOpenFileName(this, tr("Open scan file"), modelFolder(modelPath, QDir::homePath()),
                                             tr("Scan files (*.json);;All files (*)"));
        if (!path.isEmpty())
            openScanFile(path);
    });
    connect(m_type, &QComboBox::currentIndexChanged, this, &SensitivityView::showType);
    connect(m_run, &ScanRunPanel::finished, this, [this](bool, const QString&, const QString& scanFile) {
        if (!scanFile.isEmpty())
            openScanFile(scanFile);
    });
    connect(m_exportPlot, &QPushButton::clicked, this, [this, modelPath]() {
        const QString path = askSaveFileName(this, tr("Export heatmap"),
                                             proposedExportPath(modelPath, QFileInfo(modelPath).completeBaseName() + QStringLiteral(".sensitivity-%1.png").arg(m_type->currentText())),
                                             tr("Images (*.png *.svg *.pdf)"));
        if (path.isEmpty())
            return;
        rememberExportFolder(path);
        const QString error = exportHeatmap(path);
        m_summary->setText(error.isEmpty() ? tr("Heatmap saved to %1").arg(path) : error);
    });
    connect(m_exportCsv, &QPushButton::clicked, this, [this, modelPath]() {
        const QString path = askSaveFileName(this, tr("Export scan figures"),
                                             proposedExportPath(modelPath, QFileInfo(modelPath).completeBaseName() + QStringLiteral(".sensitivity.csv")),
                                             tr("CSV files (*.csv)"));
        if (path.isEmpty() || !m_record)
            return;
        rememberExportFolder(path);
        // Off the GUI thread: the target may be a slow or remote file system.
        m_writeJobs.run([path, text = gguf::scanFiguresCsv(*m_record)](const JobControl&) { return writeBytes(path, text); },
                        [this, path](gguf::Ok) { m_summary->setText(tr("Figures saved to %1").arg(path)); },
                        [this](const JobOutcome& outcome) { m_summary->setText(outcome.message()); });
    });
}

void SensitivityView::setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path)
{
    m_run->setImportance(std::move(matrix), path);
}

QString SensitivityView::summaryText() const
{
    return m_summary->text();
}

void SensitivityView::openScanFile(const QString& path)
{
    m_summary->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_readJobs.run(
        [path](const JobControl&) -> gguf::Result<std::shared_ptr<const gguf::ScanRecord>> {
            auto record = gguf::readScanFile(path.toStdString());
            if (!record)
                return record.error();
            return std::make_shared<const gguf::ScanRecord>(std::move(*record));
        },
        [this, path](std::shared_ptr<const gguf::ScanRecord> record) {
            showRecord(std::move(record), path);
            emit scanLoaded(true, m_summary->text());
        },
        [this](const JobOutcome& outcome) {
            const QString message = QString::fromStdString(gguf::escapeForDisplay(outcome.message().toStdString()));
            m_summary->setText(message);
            emit scanLoaded(false, message);
        });
}

void SensitivityView::showRecord(std::shared_ptr<const gguf::ScanRecord> record, const QString& source)
{
    m_record = std::move(record);
    const QString previous = m_type->currentText();
    {
        const QSignalBlocker quiet(m_type);
        m_type->clear();
        if (m_record)
            for (const std::uint32_t type : m_record->identity.types)
                m_type->addItem(QString::fromStdString(gguf::typeName(type)), type);
        m_type->setCurrentIndex(std::max(0, m_type->findText(previous)));
    }
    for (QPushButton* button : {m_exportPlot, m_exportCsv})
        button->setEnabled(m_record != nullptr);
    if (!m_record) {
        m_summary->setText(tr("No scan: open a scan file or run one."));
        showType();
        emit scanChanged(nullptr);
        return;
    }
    // The planner takes only a complete scan of this model's tensors.
    std::size_t known = 0;
    for (const gguf::ScanGroup& group : m_record->groups)
        known += m_model->findTensor(group.tensor) != nullptr;
    const bool complete = m_record->measured() == m_record->probes.size();
    QString text = tr("%1: %2 of %3 probes measured over %4 tokens (chunks of %5)%6.")
                       .arg(QString::fromStdString(gguf::escapeForDisplay(QFileInfo(source).fileName().toStdString())))
                       .arg(m_record->measured())
                       .arg(m_record->probes.size())
                       .arg(m_record->identity.tokens)
                       .arg(m_record->identity.chunkSize)
                       .arg(m_record->identity.importance.empty() ? QString() : tr(", with an imatrix"));
    // The same check as plan --scan: the groups' shapes and the model's tensor names and shapes.
    const gguf::Status fits = gguf::checkScanForModel(*m_record, *m_model, {});
    if (known < m_record->groups.size())
        text += tr(" %1 of its %2 groups are not tensors of this model: not used by the planner.").arg(m_record->groups.size() - known).arg(m_record->groups.size());
    else if (!fits)
        text += tr(" Not used by the planner: %1.").arg(QString::fromStdString(gguf::escapeForDisplay(fits.error().message)));
    else if (!complete)
        text += tr(" Partial: the planner needs every probe (resume the scan).");
    else
        text += tr(" The planner plans by the KLD it predicts.");
    m_summary->setText(text);
    showType();
    if (fits)  // what it measured so far colours the model's graph
        TensorFigureStore::instance().publish(scanFigures(QString::fromStdString(m_model->primary().path()), *m_record));
    emit scanChanged(complete && fits ? m_record : nullptr);
}

void SensitivityView::showType()
{
    const std::uint32_t type = m_type->currentData().toUInt();
    m_heatmap->show(m_record, type);
    const std::vector<std::size_t> ranked = m_record ? gguf::rankedProbes(*m_record, type) : std::vector<std::size_t>{};
    const std::size_t n = std::min(kListedGroups, ranked.size());
    mostSensitive()->setProbes(m_record, std::vector<std::size_t>(ranked.begin(), ranked.begin() + std::ptrdiff_t(n)));
    leastSensitive()->setProbes(m_record, std::vector<std::size_t>(ranked.rbegin(), ranked.rbegin() + std::ptrdiff_t(n)));
}

ScanProbeListModel* SensitivityView::mostSensitive() const
{
    return static_cast<ScanProbeListModel*>(m_most->model());
}

ScanProbeListModel* SensitivityView::leastSensitive() const
{
    return static_cast<ScanProbeListModel*>(m_least->model());
}

QString SensitivityView::exportHeatmap(const QString& path)
{
    return exportPlot(m_heatmap->plot(), path, 0, 0, tr("Sensitivity at %1: %2").arg(m_type->currentText(), QString::fromStdString(gguf::escapeForDisplay(m_model->primary().path()))));
}

QString SensitivityView::exportFigures(const QString& path) const
{
    if (!m_record)
        return tr("No scan to export");
    const gguf::Status written = writeBytes(path, gguf::scanFiguresCsv(*m_record));
    return written ? QString() : QString::fromStdString(written.error().toString());
}
