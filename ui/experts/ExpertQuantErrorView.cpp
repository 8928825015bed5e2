#include "ui/experts/ExpertQuantErrorView.h"

#include "ui/common/JobProgressBar.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/common/StartWhenShown.h"
#include "ui/experts/ExpertQuantErrorPanel.h"
#include "ui/session/ExpertQuantErrorJob.h"
#include "core/base/EscapedText.h"
#include "core/imatrix/ImatrixForModel.h"
#include "core/quantize/Quantize.h"
#include "ui/session/BackgroundJob.h"
#include "ui/session/ExpertQuantErrorModel.h"
#include "ui/common/FileDialogs.h"
#include "ui/session/ModelLoader.h"
#include "ui/shell/OpenUrl.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>
#include <optional>
#include <qcustomplot.h>

namespace {
constexpr std::uint32_t kQ8_0 = gguf::typeIdValue(gguf::GgmlTypeId::Q8_0);
constexpr std::uint32_t kQ2_K = gguf::typeIdValue(gguf::GgmlTypeId::Q2_K);

QString typeLabel(std::uint32_t typeId)
{
    return QString::fromStdString(gguf::typeName(typeId));
}
}  // namespace

ExpertQuantErrorView::ExpertQuantErrorView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_typeButton(new QToolButton(this)), m_types{kQ2_K, kQ8_0},
      m_startWhenShown(new StartWhenShown(this, [this]() { start(); })), m_imatrixButton(new QToolButton(this)),
      m_compareWithButton(new QToolButton(this))
{
    m_panel = new ExpertQuantErrorPanel({new QLabel(tr("Quantize each expert to:"), this), m_typeButton, m_imatrixButton, m_compareWithButton}, this);
    // Other files of the model: their stored experts against this file's (re-quantizing the open
    // file was the only comparison).
    m_compareWithButton->setObjectName(QStringLiteral("compareWithButton"));
    m_compareWithButton->setText(tr("Compare with…"));
    m_compareWithButton->setPopupMode(QToolButton::InstantPopup);
    auto* compareMenu = new QMenu(m_compareWithButton);
    compareMenu->addAction(tr("Add File…"), this, [this]() {
        const QString folder = m_source ? QFileInfo(QString::fromStdString(m_source->primary().path())).absolutePath() : QString();
        const QString path = askOpenFileName(this, tr("Compare With"), folder, tr("GGUF models (*.gguf);;All files (*)"));
        if (!path.isEmpty())
            addOtherFile(path);
    });
    compareMenu->addAction(tr("Add URL…"), this, [this]() {
        const QString url = askForModelUrl(this);
        if (!url.isEmpty())
            addOtherFile(url);
    });
    compareMenu->addAction(tr("Remove Files"), this, [this]() { setOtherFiles({}); });
    m_compareWithButton->setMenu(compareMenu);
    m_typeButton->setObjectName(QStringLiteral("quantTypesButton"));
    m_typeButton->setText(tr("Types"));
    m_typeButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_typeButton);
    for (const gguf::TypeTraits* type : gguf::quantizableTypes()) {
        if (type->kind != gguf::TypeKind::Quantized)
            continue;
        QAction* action = menu->addAction(QString::fromLatin1(type->name));
        action->setCheckable(true);
        action->setData(type->id);
        action->setChecked(std::find(m_types.begin(), m_types.end(), type->id) != m_types.end());
        connect(action, &QAction::toggled, this, &ExpertQuantErrorView::typesChosen);
    }
    menu->setToolTipsVisible(true);
    m_typeButton->setMenu(menu);
    m_imatrixButton->setObjectName(QStringLiteral("quantImatrixButton"));
    m_imatrixButton->setText(tr("Importance matrix…"));
    m_imatrixButton->setToolTip(tr("Quantize each expert with its importance weights, as llama-quantize --imatrix does"));
    connect(m_imatrixButton, &QToolButton::clicked, this, [this]() {
        const QString folder = m_source ? QFileInfo(QString::fromStdString(m_source->primary().path())).absolutePath() : QString();
        const QString path = askOpenFileName(this, tr("Importance Matrix"), folder, tr("Importance matrices (*.gguf *.dat);;All files (*)"));
        if (!path.isEmpty())
            setImportanceMatrixPath(path);
    });
    updateTypeAvailability();

    m_panel->metricCombo()->setObjectName(QStringLiteral("quantMetricCombo"));
    updateMetricChoices();
    m_panel->message()->setObjectName(QStringLiteral("quantErrorMessage"));
    m_panel->table()->setObjectName(QStringLiteral("quantErrorTable"));
    m_panel->plot()->setObjectName(QStringLiteral("quantErrorPlot"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_panel);
}

bool ExpertQuantErrorView::isComputing() const
{
    return m_jobs.isRunning();
}

void ExpertQuantErrorView::setTensor(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor)
{
    m_jobs.renew();
    m_pending.reset();
    m_source = std::move(model);
    m_tensor = tensor;
    updateTypeAvailability();  // a matrix read for another model does not weigh this one
    updateMetricChoices();
    QList<QBrush> brushes;
    const QStringList labels = columnLabels(&brushes);
    m_panel->setColumnBrushes(brushes);
    m_panel->model()->reset(m_tensor ? static_cast<std::uint64_t>(m_tensor->ne[2]) : 0, labels);
    QString message = m_tensor ? tr("Error of each expert quantized to the chosen types%1, against the %2 values stored in this file.")
                                     .arg(hasImportanceMatrix() ? tr(" with the importance matrix's weights") : QString(), typeLabel(m_tensor->typeId))
                               : QString();
    // What the last matrix chosen for this model was told: kept with the figures, whatever runs.
    if (m_tensor && m_importanceModel == m_source)
        for (const QString& note : m_importanceNotes)
            message += QStringLiteral("\n⚠ ") + note;
    m_panel->message()->setText(message);
    if (m_source && m_tensor && (!m_types.empty() || !m_others.empty()))
        m_startWhenShown->request();
    else
        m_startWhenShown->drop();
}

bool ExpertQuantErrorView::hasImportanceMatrix() const
{
    return m_importance && m_importanceModel == m_source;
}

QString ExpertQuantErrorView::typeUnavailableReason(std::uint32_t typeId) const
{
    if (gguf::requiresImportance(typeId) && !hasImportanceMatrix())
        return tr("%1 needs an importance matrix: ggml quantizes it only with importance weights (llama-quantize refuses it "
                  "without --imatrix). Choose one with \"Importance matrix…\".")
            .arg(typeLabel(typeId));
    return {};
}

void ExpertQuantErrorView::updateMetricChoices()
{
    using Metric = ExpertQuantErrorModel::Metric;
    std::vector<Metric> offered{Metric::RelativeRmse, Metric::Rmse, Metric::SqnrDb, Metric::MaxAbsError, Metric::CosineSimilarity};
    if (hasImportanceMatrix()) {  // the figures the importance-aware quantizers minimise
        offered.push_back(Metric::WeightedSquaredError);
        offered.push_back(Metric::RelativeWeightedError);
    }
    if (m_panel->metricCombo()->count() == static_cast<int>(offered.size()))
        return;
    const Metric current = m_panel->model()->metric();
    const bool kept = std::find(offered.begin(), offered.end(), current) != offered.end();
    {
        const QSignalBlocker blocker(m_panel->metricCombo());
        m_panel->metricCombo()->clear();
        for (const Metric metric : offered)
            m_panel->metricCombo()->addItem(ExpertQuantErrorModel::metricName(metric), static_cast<int>(metric));
        m_panel->metricCombo()->setCurrentIndex(m_panel->metricCombo()->findData(static_cast<int>(kept ? current : Metric::RelativeRmse)));
    }
    if (!kept) {  // a weighted metric without the matrix: back to the one the tab opens on
        m_panel->model()->setMetric(Metric::RelativeRmse);
        m_panel->updateChart();
    }
}

void ExpertQuantErrorView::updateTypeAvailability()
{
    for (QAction* action : m_typeButton->menu()->actions()) {
        const QString why = typeUnavailableReason(action->data().toUInt());
        action->setEnabled(why.isEmpty());
        action->setToolTip(why.isEmpty() ? action->text() : why);
    }
}

void ExpertQuantErrorView::setImportanceMatrixPath(const QString& path)
{
    m_imatrixJobs.renew();  // another matrix was chosen: the older one's result is dropped
    m_importance.reset();
    m_importanceModel.reset();
    m_importanceNotes.clear();
    if (path.isEmpty()) {
        m_imatrixButton->setText(tr("Importance matrix…"));
        setTypes(m_types);
        QMetaObject::invokeMethod(this, [this] { emit importanceMatrixLoaded(true, {}); }, Qt::QueuedConnection);
        return;
    }
    // Reading and binding the matrix is file I/O and a scan of every entry: on the pool. It is
    // checked against the model as every user of a matrix checks it (ImatrixForModel.h): refused
    // with the reason, or used with its warnings under the figures.
    auto model = m_source;
    const auto ended = [this, model, path](std::optional<gguf::ImatrixForModel> loaded, const JobOutcome& outcome) {
        const bool succeeded = outcome.isDone();
        m_importanceModel = model;
        if (succeeded) {
            m_importance = std::move(loaded->matrix);
            for (const std::string& warning : loaded->fit.warnings())
                m_importanceNotes << QString::fromStdString(gguf::escapeForDisplay(warning));
            m_imatrixButton->setText(tr("Weighted by %1").arg(QFileInfo(path).fileName()));
        } else {
            m_imatrixButton->setText(tr("Importance matrix…"));
            m_importanceNotes << tr("Cannot use the importance matrix: %1").arg(outcome.message());
        }
        setTypes(m_types);  // restarts with (or without) the weights
        emit importanceMatrixLoaded(succeeded, succeeded ? QString() : outcome.message());
    };
    m_imatrixJobs.run(
        [path, model](const JobControl&) -> gguf::Result<gguf::ImatrixForModel> {
            if (!model)
                return gguf::Error{"no model to check the importance matrix against", gguf::Error::kNoOffset, {}};
            return gguf::loadImatrixForModel(path.toStdString(), *model);
        },
        [ended](gguf::ImatrixForModel loaded) { ended(std::move(loaded), JobOutcome::done()); },
        [ended](const JobOutcome& outcome) { ended(std::nullopt, outcome); });
    m_imatrixButton->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
}

void ExpertQuantErrorView::setTypes(const std::vector<std::uint32_t>& typeIds)
{
    updateTypeAvailability();
    m_types.clear();
    for (const std::uint32_t type : typeIds)
        if (gguf::canQuantize(type) && typeUnavailableReason(type).isEmpty() && std::find(m_types.begin(), m_types.end(), type) == m_types.end())
            m_types.push_back(type);
    for (QAction* action : m_typeButton->menu()->actions()) {
        const QSignalBlocker blocker(action);
        action->setChecked(std::find(m_types.begin(), m_types.end(), action->data().toUInt()) != m_types.end());
    }
    setTensor(m_source, m_tensor);
}

void ExpertQuantErrorView::typesChosen()
{
    std::vector<std::uint32_t> types;
    for (QAction* action : m_typeButton->menu()->actions())
        if (action->isChecked())
            types.push_back(action->data().toUInt());
    setTypes(types);
}

void ExpertQuantErrorView::start()
{
    const std::shared_ptr<const gguf::ImportanceMatrix> matrix = hasImportanceMatrix() ? m_importance : nullptr;
    auto created = pairTensorForQuantError(m_source, *m_tensor, m_types, matrix, m_others);
    if (!created || created->rows().size() != 1) {
        m_panel->message()->setText(created ? tr("the tensor could not be paired") : QString::fromStdString(created.error().toString()));
        return;
    }
    auto comparison = std::make_shared<const gguf::ModelComparison>(std::move(*created));
    QStringList notes;
    const QStringList labels = columnLabels(nullptr);
    for (std::size_t c = 0; c < comparison->columns().size() && c < static_cast<std::size_t>(labels.size()); ++c) {
        const gguf::ComparisonCell& cell = comparison->rows()[0].cells[c];
        if (!cell.ok())
            notes << QStringLiteral("%1: %2").arg(labels[static_cast<qsizetype>(c)], QString::fromStdString(cell.problem));
        else if (!cell.note.empty())
            notes << QStringLiteral("%1: %2").arg(labels[static_cast<qsizetype>(c)], QString::fromStdString(cell.note));
    }
    if (!notes.isEmpty())
        m_panel->message()->setText(m_panel->message()->text() + QLatin1Char('\n') + notes.join(QLatin1Char('\n')));

    const gguf::ImportanceEntry* entry = matrix ? matrix->find(m_tensor->name) : nullptr;  // lives with `matrix`
    if (matrix && !entry)
        m_panel->message()->setText(m_panel->message()->text() + QLatin1Char('\n')
                           + tr("The importance matrix has no entry for this tensor: no weighted figures."));

    const auto experts = static_cast<int>(m_tensor->ne[2]);
    const ExpertQuantErrorJob started = startExpertQuantErrorJob(m_jobs, comparison, matrix, entry, [this, entry](const JobOutcome& outcome, bool entryFits) {
        collect();
        m_pending.reset();
        if (entry && outcome.isDone() && !entryFits)
            m_panel->message()->setText(m_panel->message()->text() + QLatin1Char('\n')
                               + tr("The importance matrix's entry does not fit this tensor's shape: no weighted figures."));
        if (!outcome.isDone()) {
            m_panel->message()->setText(outcome.isCancelled() ? tr("Cancelled; showing the experts finished so far.") : outcome.message());
            if (outcome.isCancelled())
                m_startWhenShown->requestOnNextShow();
            return;
        }
        emit errorsReady();
    });
    m_pending = started.results;
    m_progress->track(started.job, tr("Quantization error of %n expert(s)", nullptr, experts));
    m_jobs.onChunkDone(started.job, [this]() { collect(); });
}

void ExpertQuantErrorView::collect()
{
    if (!m_pending)
        return;
    const int columns = m_panel->model()->typeColumnCount();
    m_pending->takeNew([&](std::size_t slot, const gguf::ErrorMetrics& metrics) {
        m_panel->model()->setMetrics(slot / static_cast<std::size_t>(columns), static_cast<int>(slot % static_cast<std::size_t>(columns)), metrics);
    });
}


QStringList ExpertQuantErrorView::columnLabels(QList<QBrush>* brushes) const
{
    QStringList labels;
    for (const auto& other : m_others) {
        labels << QFileInfo(QString::fromStdString(other->primary().path())).fileName();
        const gguf::TensorInfo* stored = m_tensor ? other->findTensor(m_tensor->name) : nullptr;
        if (brushes)
            *brushes << QBrush(stored ? quantTypeColour(stored->typeId) : QColor(Qt::gray));
    }
    for (const std::uint32_t type : m_types) {
        labels << typeLabel(type);
        if (brushes)
            *brushes << QBrush(quantTypeColour(type));  // each type in its colour on the Compare page too
    }
    return labels;
}

void ExpertQuantErrorView::setOtherFiles(std::vector<std::shared_ptr<const gguf::Model>> others)
{
    m_others = std::move(others);
    setTensor(m_source, m_tensor);
}

void ExpertQuantErrorView::addOtherFile(const QString& path)
{
    // Reading a header is file (or network) I/O: on the pool.
    prepareModelOpen(path);
    m_openJobs.run([path](const JobControl&) { return openModel(path); },
                   [this](std::shared_ptr<const gguf::Model> model) {
                       m_others.push_back(std::move(model));
                       setTensor(m_source, m_tensor);
                       emit otherFileOpened(true, {});
                   },
                   [this, path](const JobOutcome& outcome) {
                       const QString message = outcome.isCancelled() ? tr("cancelled") : outcome.message();
                       m_panel->message()->setText(tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), message));
                       emit otherFileOpened(false, message);
                   });
}
