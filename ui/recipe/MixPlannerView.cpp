#include "ui/recipe/MixPlannerView.h"

#include "ui/common/PlotExportMenu.h"
#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/QuantPresets.h"
#include "core/sensitivity/ScanCosts.h"
#include "core/write/ByteSink.h"
#include "ui/common/ExportLocation.h"
#include "ui/recipe/FrontierPlot.h"
#include "ui/recipe/MixKldMeasurement.h"
#include "ui/session/HeldOutCheckRun.h"
#include "ui/session/JobPoolExecutor.h"
#include "ui/common/FileDialogs.h"

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
#include <unordered_map>

namespace {

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

// A word for a POSIX shell: as it is when it is safe, else single-quoted.
QString shellWord(const QString& word)
{
    static const QString safe = QStringLiteral("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:+,");
    if (!word.isEmpty() && std::all_of(word.begin(), word.end(), [](QChar c) { return safe.contains(c); }))
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString mixTip(const QString& name, const gguf::Mix& mix, const QString& figure)
{
    return QObject::tr("%1\n%2 (%3 bytes), %4 bpw\n%5 %6")
        .arg(name, QString::fromStdString(gguf::formatBytes(mix.fileBytes)))
        .arg(mix.fileBytes)
        .arg(QString::fromStdString(gguf::formatFixed(mix.bitsPerWeight, 3)))
        .arg(figure)
        .arg(mix.error, 0, 'g', 6);
}

// The KLD `scanTable` predicts for a mix of `weightTable`'s types (same tensors, same order), or
// nothing when one of its choices has no figure in the scan.
std::optional<double> predictedKld(const gguf::ErrorTable& scanTable, const gguf::Mix& mix)
{
    double sum = 0.0;
    for (std::size_t t = 0; t < scanTable.tensors.size() && t < mix.types.size(); ++t) {
        const gguf::TypeChoice* choice = scanTable.tensors[t].find(mix.types[t]);
        if (!choice)
            return std::nullopt;
        sum += choice->cost;
    }
    return sum;
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

    m_plot = new FrontierPlot(this);
    addPlotExport(m_plot->plot(), [this]() {
        return tr("Size against error of each mix: %1").arg(QFileInfo(QString::fromStdString(m_model->primary().path())).fileName());
    });
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
    m_copyButton = new QPushButton(tr("Copy llama-quantize Command"), this);
    m_copyButton->setObjectName(QStringLiteral("copyArguments"));
    m_copyButton->setToolTip(tr("The --tensor-type rules with the base preset they apply over, as one llama-quantize command line"));
    m_saveButton = new QPushButton(tr("Save Rules File…"), this);
    m_saveButton->setObjectName(QStringLiteral("saveRules"));
    m_convertButton = new QPushButton(tr("Convert with This Plan…"), this);
    m_convertButton->setObjectName(QStringLiteral("convertPlan"));
    m_convertButton->setToolTip(tr("Writes the plan's mix: the base preset with these rules, as convert --type BASE --recipe"));
    buttons->addWidget(m_copyButton);
    buttons->addWidget(m_saveButton);
    buttons->addWidget(m_convertButton);
    m_measureButton = new QPushButton(tr("Measure KLD on a Text…"), this);
    m_measureButton->setObjectName(QStringLiteral("measureKld"));
    m_measureButton->setToolTip(tr("Runs the model over a text with the scan plan, the weight-error plan and the best preset within the budget "
                                   "quantized in memory, and marks their measured KLD on the plot (the others stay predicted)"));
    buttons->addWidget(m_measureButton);
    buttons->addStretch(1);
    m_measurement = new MixKldMeasurement(this);
    layout->addLayout(buttons);
    // The held-out check, as plan --scan --text-file --held-out N.
    auto* heldOut = new QHBoxLayout;
    m_heldOutButton = new QPushButton(tr("Check Plan on Held-out Text…"), this);
    m_heldOutButton->setObjectName(QStringLiteral("checkHeldOut"));
    m_heldOutButton->setToolTip(tr("Measures the scan plan and the two largest presets within the budget on text the scan did not see: the scan's "
                                   "own text past its tokens, or another text, all of it. The plan is offered only when it beats the best preset "
                                   "by more than twice the standard error of the per-position difference, the median agreeing; otherwise the "
                                   "preset is (as plan --scan --text-file)."));
    heldOut->addWidget(m_heldOutButton);
    heldOut->addWidget(new QLabel(tr("held-out tokens at most:"), this));
    m_heldOutTokens = new QSpinBox(this);
    m_heldOutTokens->setObjectName(QStringLiteral("heldOutTokens"));
    m_heldOutTokens->setRange(4, 1 << 30);
    m_heldOutTokens->setValue(2048);  // plan --held-out's default
    heldOut->addWidget(m_heldOutTokens);
    heldOut->addStretch(1);
    layout->addLayout(heldOut);
    m_heldOutSummary = new QLabel(this);
    m_heldOutSummary->setObjectName(QStringLiteral("heldOutSummary"));
    m_heldOutSummary->setWordWrap(true);
    m_heldOutSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_heldOutSummary);
    m_heldOutRun = new HeldOutCheckRun(this);

    connect(m_planButton, &QPushButton::clicked, this, &MixPlannerView::plan);
    connect(m_budgetEdit, &QLineEdit::returnPressed, this, &MixPlannerView::plan);
    connect(m_cancelButton, &QPushButton::clicked, this, &MixPlannerView::cancel);
    connect(m_rowsSpin, &QSpinBox::valueChanged, this, [this]() {
        m_table.reset();
        m_context.reset();
        m_scanContext.reset();
    });
    connect(m_copyButton, &QPushButton::clicked, this, [this]() {
        if (m_rules)
            QApplication::clipboard()->setText(commandText());
    });
    connect(m_convertButton, &QPushButton::clicked, this, [this]() {
        if (m_rules)
            emit convertRequested();
    });
    connect(m_measureButton, &QPushButton::clicked, this, [this]() {
        const QString path = askOpenFileName(this, tr("Text to measure on"), modelFolder(QString::fromStdString(m_model->primary().path()), QDir::homePath()),
                                             tr("Text files (*.txt);;All files (*)"));
        if (!path.isEmpty())
            measureKld(path);
    });
    connect(m_heldOutButton, &QPushButton::clicked, this, [this]() {
        const QString path = askOpenFileName(this, tr("Held-out text"), modelFolder(QString::fromStdString(m_model->primary().path()), QDir::homePath()),
                                             tr("Text files (*.txt);;All files (*)"));
        if (!path.isEmpty())
            checkHeldOut(path);
    });
    connect(m_heldOutRun, &HeldOutCheckRun::progress, this, [this](int done, int total) {
        if (total > 0)
            m_progress->setValue(int(1000.0 * double(done) / double(total)));
    });
    connect(m_heldOutRun, &HeldOutCheckRun::finished, this, [this](const gguf::HeldOutResult& result) {
        m_cancelButton->setEnabled(false);
        m_progress->setValue(1000);
        showHeldOut(result);
        emit heldOutChecked(true, m_heldOutSummary->text());
    });
    connect(m_heldOutRun, &HeldOutCheckRun::failed, this, [this](const QString& message, bool cancelled) {
        m_cancelButton->setEnabled(false);
        if (m_rules)
            setPlanActions(true);
        const QString shown = QString::fromStdString(gguf::escapeForDisplay(message.toStdString()));
        m_heldOutSummary->setText(cancelled ? tr("Held-out check cancelled.") : tr("Held-out check failed: %1").arg(shown));
        emit heldOutChecked(false, shown);
    });
    connect(m_measurement, &MixKldMeasurement::progress, this, [this](int done, int total) {
        if (total > 0)
            m_progress->setValue(int(1000.0 * double(done) / double(total)));
    });
    connect(m_measurement, &MixKldMeasurement::finished, this, [this](const std::vector<MeasuredKld>& figures, qint64 positions) {
        m_measured.clear();
        for (const MeasuredKld& f : figures)
            m_measured.emplace_back(f.label, f.meanKld);
        m_measureButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
        m_progress->setValue(1000);
        showResult(m_scanNote);
        const QString message = tr("Measured on %n position(s) of %1.", nullptr, int(positions)).arg(QFileInfo(m_measuredText).fileName());
        m_summary->setText(m_summary->text() + QLatin1Char(' ') + message);
        emit kldMeasured(true, message);
    });
    connect(m_measurement, &MixKldMeasurement::failed, this, [this](const QString& message, bool) {
        m_measureButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
        const QString shown = QString::fromStdString(gguf::escapeForDisplay(message.toStdString()));
        m_summary->setText(m_summary->text() + tr(" Measuring failed: %1").arg(shown));
        emit kldMeasured(false, shown);
    });
    connect(m_saveButton, &QPushButton::clicked, this, [this]() {
        const QString modelPath = m_model ? QString::fromStdString(m_model->primary().path()) : QString();
        const QString folder = modelFolder(modelPath, QDir::homePath());
        // The file holds only rules (llama-quantize reads every word of it as one); the base
        // preset they need goes into its name.
        const QString name = QStringLiteral("%1.%2.rules.txt").arg(QFileInfo(modelPath).completeBaseName(), basePresetName());
        const QString path = askSaveFileName(this, tr("Save rules file"), QDir(folder).filePath(name), QString());
        if (path.isEmpty())
            return;
        // Off the GUI thread: the target may be a slow or remote file system.
        m_saveJobs.run([path, bytes = rulesFileText().toUtf8()](const JobControl&) { return writeRulesFile(path, bytes); },
                       [this, path](gguf::Ok) {
                           m_summary->setText(tr("Rules saved to %1: convert with --type %2 --recipe %1 (llama-quantize: --tensor-type-file %1 … %2)")
                                                  .arg(path, basePresetName()));
                       },
                       [this](const JobOutcome& outcome) { m_summary->setText(outcome.message()); });
    });
    setPlanActions(false);
}

MixPlannerView::~MixPlannerView() = default;

QCustomPlot* MixPlannerView::plot() const
{
    return m_plot->plot();
}

void MixPlannerView::setPlanActions(bool enabled)
{
    for (QPushButton* button : {m_copyButton, m_saveButton, m_convertButton})
        button->setEnabled(enabled);
    m_measureButton->setEnabled(enabled && plannedByScan() && !m_measurement->isRunning());
    m_heldOutButton->setEnabled(enabled && plannedByScan() && !m_heldOutRun->isRunning());
    if (!enabled) {  // figures of a plan no longer shown
        m_measurement->drop();
        m_measured.clear();
        m_heldOutRun->drop();
        m_heldOut.reset();
        m_heldOutSummary->clear();
    }
}

void MixPlannerView::checkHeldOut(const QString& textFile)
{
    if (!plannedByScan() || !m_rules || m_heldOutRun->isRunning() || m_measurement->isRunning() || m_measureJobs.isRunning())
        return;
    // The presets as plan --scan takes them: evaluated on the weight table, whatever types the scan measured.
    HeldOutCheckInput input{m_model, m_scan, m_table, m_result->mix, m_presets, *m_budget, m_importance};
    m_heldOut.reset();
    m_heldOutFile = textFile;
    m_heldOutSummary->setText(tr("Measuring the plan and the presets on %1…").arg(QFileInfo(textFile).fileName()));
    m_heldOutRun->start(std::move(input), textFile, m_heldOutTokens->value());
    m_heldOutButton->setEnabled(false);
    m_measureButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_progress->setValue(0);
}

void MixPlannerView::showHeldOut(const gguf::HeldOutResult& result)
{
    m_heldOut = result;
    const gguf::MeasuredMix& best = result.mixes[result.bestPreset];
    // As plan -o: the preset alone where the plan does not win beyond the noise.
    if (!result.planWins)
        if (const gguf::QuantPreset* preset = gguf::findQuantPreset(best.label))
            m_rules = gguf::PlanRules{preset, {}};
    showResult(m_scanNote);
    m_heldOutSummary->setText(heldOutText());
}

QString MixPlannerView::heldOutText() const
{
    if (!m_heldOut)
        return {};
    const gguf::HeldOutResult& result = *m_heldOut;
    const QString file = QFileInfo(m_heldOutFile).fileName();
    QString text = result.firstToken > 0
                       ? tr("Held out: %1 tokens of %2 past the scan's %3").arg(result.tokens).arg(file).arg(result.firstToken)
                       : tr("Held out: %1 tokens of %2 (a text of its own)").arg(result.tokens).arg(file);
    text += tr(", chunks of %1, %2 positions scored. Mean KLD ± its standard error (median):").arg(m_scan->identity.chunkSize).arg(result.positions);
    for (std::size_t m = 0; m < result.mixes.size(); ++m) {
        const gguf::MeasuredMix& mix = result.mixes[m];
        text += QLatin1Char('\n') + tr("%1: %2 ± %3 (%4)").arg(QString::fromStdString(mix.label)).arg(mix.meanKld, 0, 'f', 6).arg(mix.meanError, 0, 'f', 6).arg(mix.medianKld, 0, 'f', 6);
        if (m > 0)
            text += tr("; minus the plan, per position: %1 ± %2 (median %3)").arg(mix.differenceMean, 0, 'f', 6).arg(mix.differenceError, 0, 'f', 6).arg(mix.differenceMedian, 0, 'f', 6);
        if (result.routed)  // MoE: the routing flips apart from the steady error
            text += tr("; %1 routing flip(s), steady KLD %2").arg(mix.flippedPositions).arg(mix.steadyKld, 0, 'f', 6);
        if (result.routed && m > 0)
            text += tr(", minus the plan where neither flipped %1 ± %2").arg(mix.steadyDifferenceMean, 0, 'f', 6).arg(mix.steadyDifferenceError, 0, 'f', 6);
    }
    const QString best = QString::fromStdString(result.mixes[result.bestPreset].label);
    text += QLatin1Char('\n');
    text += result.wonOnSteadyError
                ? tr("The plan beats %1 where neither flipped by more than twice that difference's standard error, flips no more and is no "
                     "worse over all positions: the plan is offered.").arg(best)
            : result.planWins ? tr("The plan beats %1 by more than twice the difference's standard error: the plan is offered.").arg(best)
                            : tr("The plan does not beat %1 by more than twice the difference's standard error: %1 is the better choice, and is "
                                 "offered instead (the rules, Copy, Save and Convert give %1 alone).").arg(best);
    return text;
}

void MixPlannerView::measureKld(const QString& textFile)
{
    if (!plannedByScan() || m_measurement->isRunning() || m_measureJobs.isRunning() || m_heldOutRun->isRunning())
        return;
    const auto typesOf = [this](const gguf::Mix& mix) {
        std::unordered_map<std::string, std::uint32_t> types;
        for (std::size_t t = 0; t < m_table->tensors.size() && t < mix.types.size(); ++t)
            types[std::string(m_table->tensors[t].tensor->name)] = mix.types[t];
        return types;
    };
    m_measuring.clear();
    m_measuring.emplace_back(tr("scan plan"), m_result->mix);
    if (m_weightPlan)
        m_measuring.emplace_back(tr("weight-error plan"), *m_weightPlan);
    for (const gguf::PresetOnFrontier& point : m_scanPresets)
        if (point.evaluated && point.preset == m_result->bestPresetWithin)
            m_measuring.emplace_back(presetName(point.preset), point.mix);
    std::vector<MixToMeasure> mixes;
    for (const auto& [label, mix] : m_measuring)
        mixes.push_back({label, typesOf(mix)});
    m_measured.clear();
    m_measuredText = textFile;
    // The scan's own chunks and token count, so the measured and the predicted figures compare.
    m_measurement->start(m_model, std::move(mixes), textFile, m_scan->identity.chunkSize, m_scan->identity.tokens, m_importance);
    m_measureButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_progress->setValue(0);
}

void MixPlannerView::setBudgetText(const QString& text)
{
    m_budgetEdit->setText(text);
}

void MixPlannerView::setImatrixPresent(bool present)
{
    if (present != m_imatrix) {
        m_imatrix = present;
        m_context.reset();
        m_scanContext.reset();
    }
}

std::optional<gguf::ImatrixProvenance> MixPlannerView::imatrixKeys() const
{
    if (!m_importance)
        return std::nullopt;
    return gguf::imatrixProvenanceOf(*m_importance, m_importancePath.toStdString());
}

void MixPlannerView::setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path)
{
    const QString keptPath = matrix ? path : QString();
    if (keptPath != m_importancePath) {  // the path's length is in the file's header: other sizes
        m_importancePath = keptPath;
        m_context.reset();
        m_scanContext.reset();
    }
    if (matrix == m_importance)
        return;
    m_importance = std::move(matrix);
    if (m_importance)
        m_imatrix = true;
    // The errors were measured with other weights (or none): measure again on the next plan.
    m_table.reset();
    m_context.reset();
    m_scanContext.reset();
}

void MixPlannerView::setScan(std::shared_ptr<const gguf::ScanRecord> scan)
{
    if (scan == m_scan)
        return;
    m_scan = std::move(scan);
    m_scanContext.reset();
    m_scanTable.reset();
    if (m_result)
        m_summary->setText(m_summary->text() + tr(" (The scan changed: plan again to use it.)"));
}

void MixPlannerView::cancel()
{
    m_measureJobs.cancel();
    m_measurement->cancel();
    m_heldOutRun->cancel();
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
            m_scanContext.reset();
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
    // Whatever was shown is of another request now.
    m_result.reset();
    m_rules.reset();
    setPlanActions(false);
    m_rulesText->clear();
    m_plot->clear(tr("Measuring the tensors' errors…"));
}

void MixPlannerView::measureEnded()
{
    m_planButton->setEnabled(true);
    m_cancelButton->setEnabled(false);
}

// The scan's costs over the measured table: the presets and the frontier by predicted KLD.
// False (with the reason in `note`) when the scan cannot be used for this table.
bool MixPlannerView::prepareScanContext(QString& note)
{
    if (m_scanContext)
        return true;
    if (m_scan->identity.importance.empty() == (m_importance != nullptr)) {
        note = m_importance ? tr("The scan was measured without an importance matrix and the planner measures with one: planned by weight error.")
                            : tr("The scan was measured with an importance matrix: load the same one to plan by it; planned by weight error.");
        return false;
    }
    auto table = std::make_shared<gguf::ErrorTable>(*m_table);
    auto applied = gguf::applyScanCosts(*table, *m_scan);
    if (!applied) {
        note = tr("The scan cannot be used: %1; planned by weight error.").arg(QString::fromStdString(gguf::escapeForDisplay(applied.error().message)));
        return false;
    }
    auto context = gguf::makePlanContext(*m_model, *table, m_imatrix, imatrixKeys());
    if (!context) {
        note = QString::fromStdString(context.error().toString());
        return false;
    }
    m_scanTable = std::move(table);
    m_scanContext = *context;
    m_scanPresets = gguf::evaluatePresets(*m_scanContext);
    m_scanFrontier = gguf::computeFrontier(*m_scanContext);
    return true;
}

void MixPlannerView::planFromTable()
{
    if (!m_context) {
        auto context = gguf::makePlanContext(*m_model, *m_table, m_imatrix, imatrixKeys());
        if (!context) {
            showFailure(QString::fromStdString(context.error().toString()));
            return;
        }
        m_context = *context;
        m_presets = gguf::evaluatePresets(*m_context);
        m_frontier = gguf::computeFrontier(*m_context);
    }
    QString scanNote;
    const bool byScan = m_scan && prepareScanContext(scanNote);
    if (!byScan)
        m_scanContext.reset();
    const gguf::PlanContext& context = byScan ? *m_scanContext : *m_context;
    const std::vector<gguf::PresetOnFrontier>& presets = byScan ? m_scanPresets : m_presets;
    auto result = gguf::planMix(context, presets, *m_budget);
    if (!result) {
        showFailure(QString::fromStdString(result.error().message));
        return;
    }
    m_weightPlan.reset();
    m_weightPlanKld.reset();
    if (byScan)
        if (auto weightPlan = gguf::planMix(*m_context, m_presets, *m_budget)) {
            m_weightPlan = weightPlan->mix;
            m_weightPlanKld = predictedKld(*m_scanTable, weightPlan->mix);
        }
    m_result = std::move(*result);
    auto rules = gguf::rulesForMix(context, presets, m_result->mix);
    if (!rules) {
        showFailure(QString::fromStdString(rules.error().message));
        return;
    }
    m_rules = std::move(*rules);
    m_scanNote = scanNote;
    m_measurement->drop();
    m_measured.clear();
    m_heldOutRun->drop();  // a check of the plan before
    m_heldOut.reset();
    m_heldOutSummary->clear();
    showResult(scanNote);
    emit planFinished(true, m_summary->text());
}

void MixPlannerView::showResult(const QString& scanNote)
{
    const bool byScan = plannedByScan();
    const QString figure = byScan ? tr("predicted KLD") : tr("estimated error");
    FrontierData points;
    points.valueLabel = byScan ? tr("predicted KLD (sum of the scan's cells; not measured)") : tr("estimated relative squared error, summed over tensors");
    for (const gguf::Mix& mix : frontier())
        points.frontier.push_back({double(mix.fileBytes), mix.error, {}, mixTip(tr("frontier"), mix, figure)});
    for (const gguf::PresetOnFrontier& point : presets())
        if (point.evaluated)
            points.presets.push_back({double(point.mix.fileBytes), point.mix.error, presetName(point.preset), mixTip(presetName(point.preset), point.mix, figure)});
    points.planName = byScan ? tr("scan plan") : tr("plan");
    points.plan.push_back({double(m_result->mix.fileBytes), m_result->mix.error, {}, mixTip(points.planName, m_result->mix, figure)});
    if (m_weightPlan && m_weightPlanKld) {
        gguf::Mix shown = *m_weightPlan;
        shown.error = *m_weightPlanKld;
        points.otherPlanName = tr("weight-error plan");
        points.otherPlan.push_back({double(shown.fileBytes), shown.error, {}, mixTip(points.otherPlanName, shown, figure)});
    }
    for (const auto& [label, kld] : m_measured)
        for (const auto& [name, mix] : m_measuring)
            if (name == label) {
                gguf::Mix shown = mix;
                shown.error = kld;
                points.measured.push_back({double(mix.fileBytes), kld, {}, mixTip(label, shown, tr("measured KLD on %1:").arg(QFileInfo(m_measuredText).fileName()))});
            }
    if (!points.measured.empty())
        points.valueLabel = tr("KLD: predicted (sum of the scan's cells); rings: measured");
    if (m_budget->kind == gguf::Budget::Kind::FileBytes)
        points.budgetBytes = m_budget->value;
    else  // bits per weight of the tensor points: the file adds what the plan's file adds to its points
        points.budgetBytes = m_budget->value * double(m_table->totalElements) / 8.0 + double(m_result->mix.fileBytes - m_result->mix.dataBytes);
    m_plot->show(points);

    const gguf::Mix& mix = m_result->mix;
    QString text = tr("%1: %2 (%3 bytes), %4 bpw, %5 %6")
                       .arg(byScan ? tr("Scan plan") : tr("Plan"), QString::fromStdString(gguf::formatBytes(mix.fileBytes)))
                       .arg(mix.fileBytes)
                       .arg(QString::fromStdString(gguf::formatFixed(mix.bitsPerWeight, 3)))
                       .arg(figure)
                       .arg(mix.error, 0, 'g', 6);
    if (m_result->bestPresetWithin)
        text += tr("; the best preset within the budget, %1, has %2 %3").arg(presetName(m_result->bestPresetWithin), figure).arg(m_result->bestPresetError, 0, 'g', 6);
    if (m_weightPlan)
        text += m_weightPlanKld ? tr("; the weight-error plan (%1) would have %2 %3").arg(QString::fromStdString(gguf::formatBytes(m_weightPlan->fileBytes)), figure).arg(*m_weightPlanKld, 0, 'g', 6)
                                : tr("; the weight-error plan uses a type the scan did not measure");
    text += tr(". As %1 rule(s) over %2.").arg(m_rules->rules.size()).arg(presetName(m_rules->basePreset));
    if (!m_measured.empty()) {
        QStringList measured;
        for (const auto& [label, kld] : m_measured)
            measured << tr("%1 %2").arg(label).arg(kld, 0, 'g', 4);
        text += tr(" Measured KLD: %1.").arg(measured.join(QStringLiteral(", ")));
    }
    if (!scanNote.isEmpty())
        text += QLatin1Char(' ') + scanNote;
    m_summary->setText(text);
    m_rulesText->setPlainText(rulesFileText());
    setPlanActions(true);
}

void MixPlannerView::showFailure(const QString& message)
{
    const QString shown = QString::fromStdString(gguf::escapeForDisplay(message.toStdString()));
    m_result.reset();
    m_rules.reset();
    m_weightPlan.reset();
    m_weightPlanKld.reset();
    m_summary->setText(shown);
    m_rulesText->clear();
    setPlanActions(false);
    m_plot->clear(tr("No plan: %1").arg(shown));
    emit planFinished(false, message);
}

QString MixPlannerView::basePresetName() const
{
    return m_rules ? presetName(m_rules->basePreset) : QString();
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

QString MixPlannerView::commandText() const
{
    if (!m_rules)
        return {};
    const QFileInfo model(QString::fromStdString(m_model->primary().path()));
    const QString base = basePresetName();
    QStringList words{QStringLiteral("llama-quantize")};
    if (!m_importancePath.isEmpty())
        words << QStringLiteral("--imatrix") << shellWord(m_importancePath);
    if (!m_rules->rules.empty())
        words << QString::fromStdString(gguf::formatTensorTypeArguments(m_rules->rules));
    words << shellWord(model.filePath()) << shellWord(model.dir().filePath(model.completeBaseName() + QStringLiteral("-plan-%1.gguf").arg(base))) << base;
    return words.join(QLatin1Char(' '));
}

bool MixPlannerView::saveRules(const QString& path, QString* error) const
{
    const gguf::Status written = writeRulesFile(path, rulesFileText().toUtf8());
    if (!written && error)
        *error = QString::fromStdString(written.error().toString());
    return written.ok();
}
