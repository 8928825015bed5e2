#include "ui/recipe/MixPlannerView.h"

#include "core/quantize/Quantize.h"
#include "ui/common/ExportLocation.h"
#include "ui/common/PlotExportMenu.h"

#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"
#include "ui/common/PlotPalette.h"
#include "ui/session/JobPoolExecutor.h"
#include "core/write/ByteSink.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <atomic>

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Writes a rules file through a temporary file.
gguf::Status writeRulesFile(const QString& path, const QByteArray& bytes)
{
    auto sink = gguf::openOutputFile(path.toStdString());
    gguf::Status status = sink ? (*sink)->write(bytes.constData(), std::size_t(bytes.size())) : gguf::Status(sink.error());
    if (status)
        status = (*sink)->commit();
    return status;
}

QString presetName(const gguf::QuantPreset* preset)
{
    return preset ? QString::fromUtf8(preset->name.data(), int(preset->name.size())) : QString();
}

}  // namespace

MixPlannerView::MixPlannerView(std::shared_ptr<const gguf::Model> model, QWidget* parent) : QWidget(parent), m_model(std::move(model))
{
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Budget:"), this));
    m_budgetEdit = new QLineEdit(this);
    m_budgetEdit->setObjectName(QStringLiteral("budgetEdit"));
    m_budgetEdit->setPlaceholderText(tr("4.2GB, 900MiB or 4.5bpw"));
    controls->addWidget(m_budgetEdit);
    controls->addWidget(new QLabel(tr("rows per tensor:"), this));
    m_rowsSpin = new QSpinBox(this);
    m_rowsSpin->setObjectName(QStringLiteral("sampleRows"));
    m_rowsSpin->setRange(1, 1 << 20);
    m_rowsSpin->setValue(64);
    m_rowsSpin->setToolTip(tr("Rows measured per tensor; the error is scaled to all rows. Changing it measures again."));
    controls->addWidget(m_rowsSpin);
    m_planButton = new QPushButton(tr("Plan"), this);
    m_planButton->setObjectName(QStringLiteral("planButton"));
    controls->addWidget(m_planButton);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelPlan"));
    m_cancelButton->setEnabled(false);
    controls->addWidget(m_cancelButton);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("planProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    controls->addWidget(m_progress, 1);
    layout->addLayout(controls);

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("frontierPlot"));
    addPlotExport(m_plot, [this]() {
        return tr("Size against estimated error of each mix: %1").arg(QFileInfo(QString::fromStdString(m_model->primary().path())).fileName());
    });
    m_plot->setMinimumHeight(220);
    m_plot->xAxis->setLabel(tr("file size (MiB)"));
    m_plot->yAxis->setLabel(tr("estimated relative squared error, summed over tensors"));
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    m_plot->legend->setVisible(true);
    followPalette(m_plot);
    layout->addWidget(m_plot, 3);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("planSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_rulesText = new QPlainTextEdit(this);
    m_rulesText->setObjectName(QStringLiteral("planRules"));
    m_rulesText->setReadOnly(true);
    layout->addWidget(m_rulesText, 1);
    auto* buttons = new QHBoxLayout;
    auto* copy = new QPushButton(tr("Copy --tensor-type Arguments"), this);
    copy->setObjectName(QStringLiteral("copyArguments"));
    m_saveButton = new QPushButton(tr("Save Rules File…"), this);
    m_saveButton->setObjectName(QStringLiteral("saveRules"));
    buttons->addWidget(copy);
    buttons->addWidget(m_saveButton);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    connect(m_planButton, &QPushButton::clicked, this, &MixPlannerView::plan);
    connect(m_budgetEdit, &QLineEdit::returnPressed, this, &MixPlannerView::plan);
    connect(m_cancelButton, &QPushButton::clicked, this, &MixPlannerView::cancel);
    connect(m_rowsSpin, &QSpinBox::valueChanged, this, [this]() { m_table.reset(); });
    connect(copy, &QPushButton::clicked, this, [this]() {
        if (m_rules)
            QApplication::clipboard()->setText(QString::fromStdString(gguf::formatTensorTypeArguments(m_rules->rules)));
    });
    connect(m_saveButton, &QPushButton::clicked, this, [this]() {
        const QString modelPath = m_model ? QString::fromStdString(m_model->primary().path()) : QString();
        const QString folder = modelFolder(modelPath, QDir::homePath());
        const QString path = QFileDialog::getSaveFileName(this, tr("Save rules file"),
                                                          QDir(folder).filePath(QFileInfo(modelPath).completeBaseName() + QStringLiteral(".rules.txt")));
        if (path.isEmpty())
            return;
        // Off the GUI thread: the target may be a slow or remote file system.
        m_saveJobs.run([path, bytes = rulesFileText().toUtf8()](const JobControl&) { return writeRulesFile(path, bytes); },
                       [this, path](gguf::Ok) { m_summary->setText(tr("Rules saved to %1").arg(path)); },
                       [this](const JobOutcome& outcome) { m_summary->setText(outcome.message()); });
    });
    m_saveButton->setEnabled(false);
}

MixPlannerView::~MixPlannerView() = default;

void MixPlannerView::setBudgetText(const QString& text)
{
    m_budgetEdit->setText(text);
}

void MixPlannerView::setImatrixPresent(bool present)
{
    if (present != m_imatrix) {
        m_imatrix = present;
        m_context.reset();
    }
}

void MixPlannerView::setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix)
{
    if (matrix == m_importance)
        return;
    m_importance = std::move(matrix);
    if (m_importance)
        m_imatrix = true;
    // The errors were measured with other weights (or none): measure again on the next plan.
    m_table.reset();
    m_context.reset();
}

void MixPlannerView::cancel()
{
    m_measureJobs.cancel();
}

void MixPlannerView::plan()
{
    if (m_measureJobs.isRunning())
        return;
    auto budget = gguf::parseBudget(m_budgetEdit->text().trimmed().toStdString());
    if (!budget) {
        showFailure(QString::fromStdString(budget.error().message));
        return;
    }
    m_budget = *budget;
    if (m_table)
        planFromTable();
    else
        measureThenPlan();
}

void MixPlannerView::measureThenPlan()
{
    auto model = m_model;
    const auto rows = static_cast<std::size_t>(m_rowsSpin->value());
    // One job: the measurement spreads its sampled rows over the job pool itself.
    auto importance = m_importance;
    BackgroundJob* job = m_measureJobs.run(
        [model, rows, importance](const JobControl& control) -> gguf::Result<std::shared_ptr<gguf::ErrorTable>> {
            gguf::ErrorTableOptions options;
            options.executor = &JobPoolExecutor::instance();
            options.sampleRows = rows;
            if (importance) {
                options.quantizer = gguf::quantizeRows;
                options.quantizerMakes = gguf::canQuantize;
                options.importance = [importance](std::string_view name, std::size_t expert) {
                    const gguf::ImportanceEntry* entry = importance->find(name);
                    return entry ? entry->quantWeights(expert) : std::vector<float>{};
                };
            }
            options.cancel = control.cancelFlag();
            options.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
            auto table = gguf::measureErrorTable(*model, options);
            if (!table)
                return table.error();
            return std::make_shared<gguf::ErrorTable>(std::move(*table));
        },
        [this](std::shared_ptr<gguf::ErrorTable> table) {
            measureEnded();
            m_progress->setValue(1000);
            m_table = std::move(table);
            m_context.reset();
            planFromTable();
        },
        [this](const JobOutcome& outcome) {
            measureEnded();
            showFailure(outcome.isCancelled() ? tr("Planning cancelled") : outcome.message());
        });
    m_measureJobs.onWorkProgress(job, [this](quint64 done, quint64 total) {
        if (total > 0)
            m_progress->setValue(int(1000.0 * double(done) / double(total)));
    });
    m_planButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_progress->setValue(0);
}

void MixPlannerView::measureEnded()
{
    m_planButton->setEnabled(true);
    m_cancelButton->setEnabled(false);
}

void MixPlannerView::planFromTable()
{
    if (!m_context) {
        auto context = gguf::makePlanContext(*m_model, *m_table, m_imatrix);
        if (!context) {
            showFailure(QString::fromStdString(context.error().toString()));
            return;
        }
        m_context = *context;
        m_presets = gguf::evaluatePresets(*m_context);
        m_frontier = gguf::computeFrontier(*m_context);
    }
    auto result = gguf::planMix(*m_context, m_presets, *m_budget);
    if (!result) {
        m_result.reset();
        m_rules.reset();
        showFailure(QString::fromStdString(result.error().message));
        return;
    }
    m_result = std::move(*result);
    auto rules = gguf::rulesForMix(*m_context, m_presets, m_result->mix);
    if (!rules) {
        m_rules.reset();
        showFailure(QString::fromStdString(rules.error().message));
        return;
    }
    m_rules = std::move(*rules);
    showResult();
    emit planFinished(true, m_summary->text());
}

void MixPlannerView::showResult()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    auto* frontier = m_plot->addGraph();
    frontier->setName(tr("frontier"));
    frontier->setLineStyle(QCPGraph::lsStepLeft);
    QVector<double> xs, ys;
    for (const gguf::Mix& mix : m_frontier)
        if (mix.error > 0) {
            xs << double(mix.fileBytes) / kMiB;
            ys << mix.error;
        }
    frontier->setData(xs, ys, true);

    auto* presets = m_plot->addGraph();
    presets->setName(tr("presets"));
    presets->setLineStyle(QCPGraph::lsNone);
    presets->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    QVector<double> px, py;
    for (const gguf::PresetOnFrontier& point : m_presets) {
        if (!point.evaluated || !(point.mix.error > 0))
            continue;
        px << double(point.mix.fileBytes) / kMiB;
        py << point.mix.error;
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(px.back(), py.back());
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setText(presetName(point.preset));
        label->setFont(QFont(font().family(), 7));
    }
    presets->setData(px, py);

    auto* chosen = m_plot->addGraph();
    chosen->setName(tr("plan"));
    chosen->setLineStyle(QCPGraph::lsNone);
    chosen->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QColor(220, 30, 30), 14));
    if (m_result && m_result->mix.error > 0)
        chosen->setData({double(m_result->mix.fileBytes) / kMiB}, {m_result->mix.error});
    m_plot->rescaleAxes();
    m_plot->replot();

    const gguf::Mix& mix = m_result->mix;
    QString text = tr("Plan: %1 (%2 bytes), %3 bpw, estimated error %4")
                       .arg(QString::fromStdString(gguf::formatBytes(mix.fileBytes)))
                       .arg(mix.fileBytes)
                       .arg(mix.bitsPerWeight, 0, 'f', 3)
                       .arg(mix.error, 0, 'g', 6);
    if (m_result->bestPresetWithin)
        text += tr("; the best preset within the budget, %1, has error %2").arg(presetName(m_result->bestPresetWithin)).arg(m_result->bestPresetError, 0, 'g', 6);
    text += tr(". As %1 rule(s) over %2.").arg(m_rules->rules.size()).arg(presetName(m_rules->basePreset));
    m_summary->setText(text);
    m_rulesText->setPlainText(rulesFileText());
    m_saveButton->setEnabled(true);
}

void MixPlannerView::showFailure(const QString& message)
{
    m_summary->setText(QString::fromStdString(gguf::escapeForDisplay(message.toStdString())));
    m_rulesText->clear();
    m_saveButton->setEnabled(false);
    emit planFinished(false, message);
}

QString MixPlannerView::rulesFileText() const
{
    if (!m_rules)
        return {};
    QString text;
    for (const gguf::TensorTypeRule& rule : m_rules->rules)
        text += QString::fromStdString(gguf::formatTensorTypeRule(rule)) + QLatin1Char('\n');
    return text;
}

bool MixPlannerView::saveRules(const QString& path, QString* error) const
{
    const gguf::Status written = writeRulesFile(path, rulesFileText().toUtf8());
    if (!written && error)
        *error = QString::fromStdString(written.error().toString());
    return written.ok();
}
