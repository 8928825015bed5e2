#include "ui/experts/ExpertsPage.h"

#include "ui/common/ExportLocation.h"

#include "ui/session/BackgroundJob.h"
#include "ui/session/ExpertExportJob.h"
#include "ui/experts/ExpertGridView.h"
#include "ui/experts/ExpertLayerExtrasView.h"
#include "ui/experts/ExpertQuantErrorView.h"
#include "ui/session/ExpertScan.h"
#include "ui/session/ExpertSelection.h"
#include "ui/experts/ExpertSimilarityView.h"
#include "ui/session/ExpertStatisticsModel.h"
#include "ui/experts/ExpertStatisticsView.h"
#include "core/base/HumanFormat.h"
#include "ui/common/JobProgressBar.h"
#include "ui/experts/LayerExpertHeatmap.h"
#include "ui/common/FileDialogs.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace {

QString nameOf(const gguf::TensorInfo& tensor)
{
    return QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

gguf::ExportFormat formatForPath(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("npy") ? gguf::ExportFormat::Npy
         : suffix == QLatin1String("csv") ? gguf::ExportFormat::Csv
                                          : gguf::ExportFormat::RawF32;
}
}  // namespace

ExpertsPage::ExpertsPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_index(gguf::ExpertIndex::build(*m_model)), m_stack(new QStackedWidget(this)),
      m_noExperts(new QLabel(this)), m_warnings(new QLabel(this)), m_progress(new JobProgressBar(this)), m_scan(new ExpertScan(this)),
      m_statisticsModel(new ExpertStatisticsModel(this))
{
    m_noExperts->setObjectName(QStringLiteral("noExpertsMessage"));
    m_noExperts->setWordWrap(true);
    m_noExperts->setAlignment(Qt::AlignCenter);
    m_noExperts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setObjectName(QStringLiteral("expertWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setStyleSheet(QStringLiteral("color: #b00;"));
    QStringList lines;
    for (const std::string& problem : m_index.inconsistencies())
        lines << QString::fromStdString(problem).toHtmlEscaped();
    m_warnings->setText(lines.isEmpty() ? QString() : tr("This file's experts are inconsistent:<br>%1").arg(lines.join(QStringLiteral("<br>"))));
    m_warnings->setVisible(!lines.isEmpty() && hasExperts());

    m_stack->addWidget(m_noExperts);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_warnings);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_progress);
    if (!hasExperts()) {
        m_noExperts->setText(noExpertsText());
        return;
    }
    m_stack->addWidget(createExpertsView());
    m_stack->setCurrentIndex(1);
    for (const gguf::ExpertLayer& layer : m_index.layers())
        m_layer->addItem(tr("Layer %1").arg(layer.layer), layer.layer);
    connect(m_layer, &QComboBox::currentIndexChanged, this, &ExpertsPage::populateProjections);
    connect(m_projection, &QComboBox::currentIndexChanged, this, &ExpertsPage::showCurrentTensor);
    populateProjections();
}

QWidget* ExpertsPage::createExpertsView()
{
    auto* view = new QWidget(this);
    m_layer = new QComboBox(view);
    m_layer->setObjectName(QStringLiteral("layerCombo"));
    m_projection = new QComboBox(view);
    m_projection->setObjectName(QStringLiteral("projectionCombo"));
    m_selection = new QLineEdit(view);
    m_selection->setObjectName(QStringLiteral("expertSelectionEdit"));
    m_selection->setPlaceholderText(tr("e.g. 0-7,12"));
    m_selection->setToolTip(tr("Experts to show side by side: indices and ranges, e.g. 0-7,12"));
    connect(m_selection, &QLineEdit::editingFinished, this, &ExpertsPage::applySelectionEdit);
    m_tensorLabel = new QLabel(view);
    m_tensorLabel->setObjectName(QStringLiteral("expertTensorLabel"));
    m_tensorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tensorLabel->setWordWrap(true);

    auto* exportButton = new QToolButton(view);
    exportButton->setObjectName(QStringLiteral("expertExportButton"));
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("Shown experts as one array [n, rows, cols]…"), this, [this]() { chooseExport(m_shown); });
    exportMenu->addAction(tr("One expert…"), this, &ExpertsPage::chooseSingleExport);
    exportButton->setMenu(exportMenu);

    m_grid = new ExpertGridView(view);
    m_statisticsView = new ExpertStatisticsView(m_statisticsModel, view);
    m_similarity = new ExpertSimilarityView(m_progress, view);
    m_layerHeatmap = new LayerExpertHeatmap(m_progress, view);
    m_quantError = new ExpertQuantErrorView(m_progress, view);
    m_extras = new ExpertLayerExtrasView(view);
    m_tabs = new QTabWidget(view);
    m_tabs->setObjectName(QStringLiteral("expertTabs"));
    m_tabs->addTab(m_grid, tr("Experts"));
    m_tabs->addTab(m_statisticsView, tr("Statistics"));
    m_tabs->addTab(m_similarity, tr("Similarity"));
    m_tabs->addTab(m_layerHeatmap, tr("Across layers"));
    m_tabs->addTab(m_quantError, tr("Quantization error"));
    m_tabs->addTab(m_extras, tr("Shared experts and biases"));
    installChartExports();

    connect(m_scan, &ExpertScan::jobStarted, m_progress, &JobProgressBar::track);
    connect(m_scan, &ExpertScan::statisticsReady, m_statisticsModel, &ExpertStatisticsModel::setStatistics);
    connect(m_scan, &ExpertScan::statisticsReady, m_grid, &ExpertGridView::showStatistics);
    connect(m_scan, &ExpertScan::heatmapReady, m_grid, &ExpertGridView::showHeatmap);
    connect(m_scan, &ExpertScan::expertFailed, this, [this](std::uint64_t expert, const QString& error) {
        m_grid->showError(expert, error);
        m_grid->setMessage(tr("Expert %1 could not be read: %2").arg(expert).arg(error));
    });
    connect(m_grid, &ExpertGridView::openRequested, this, &ExpertsPage::requestOpen);
    connect(m_grid, &ExpertGridView::exportRequested, this, [this](std::uint64_t expert) { chooseExport({expert}); });
    connect(m_statisticsView, &ExpertStatisticsView::openRequested, this, &ExpertsPage::requestOpen);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Layer:"), view));
    controls->addWidget(m_layer);
    controls->addWidget(new QLabel(tr("Projection:"), view));
    controls->addWidget(m_projection);
    controls->addWidget(new QLabel(tr("Experts:"), view));
    controls->addWidget(m_selection, 1);
    controls->addWidget(exportButton);
    auto* layout = new QVBoxLayout(view);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_tensorLabel);
    layout->addWidget(m_tabs, 1);
    return view;
}

QString ExpertsPage::noExpertsText() const
{
    int shared = 0;
    int routers = 0;
    for (const gguf::TensorInfo& tensor : m_model->tensors()) {
        shared += endsWith(tensor.name, "_shexp.weight");
        routers += endsWith(tensor.name, ".ffn_gate_inp.weight");
    }
    QString text = tr("This model has no experts: no layer holds Mixture-of-Experts weights "
                      "(3-D ffn_gate_exps / ffn_up_exps / ffn_down_exps tensors), so it is a dense model and there is nothing to compare here.");
    if (shared > 0 || routers > 0)
        text += QLatin1Char('\n') + tr("It does have %1 shared-expert tensor(s) (*_shexp) and %2 router(s) (ffn_gate_inp), "
                                       "which are ordinary dense weights: open them from the Tensors page.").arg(shared).arg(routers);
    for (const std::string& problem : m_index.inconsistencies())
        text += QLatin1Char('\n') + QString::fromStdString(problem);
    return text;
}

QString ExpertsPage::message() const
{
    return hasExperts() ? m_warnings->text() : m_noExperts->text();
}

const gguf::ExpertLayer* ExpertsPage::currentLayer() const
{
    return m_layer && m_layer->currentIndex() >= 0 ? m_index.findLayer(m_layer->currentData().toUInt()) : nullptr;
}

int ExpertsPage::currentTensorIndex() const
{
    return m_tensor ? static_cast<int>(m_tensor - m_model->tensors().data()) : -1;
}

bool ExpertsPage::selectLayer(std::uint32_t layer)
{
    const int row = m_layer ? m_layer->findData(layer) : -1;
    if (row >= 0)
        m_layer->setCurrentIndex(row);
    return row >= 0;
}

bool ExpertsPage::selectProjection(gguf::ExpertProjection projection)
{
    const int row = m_projection ? m_projection->findData(static_cast<int>(projection)) : -1;
    if (row >= 0)
        m_projection->setCurrentIndex(row);
    return row >= 0;
}

void ExpertsPage::populateProjections()
{
    const gguf::ExpertLayer* layer = currentLayer();
    // Keep the projection the user was looking at when the new layer has it too.
    const QVariant previous = m_projection->currentData();
    {
        const QSignalBlocker blocker(m_projection);
        m_projection->clear();
        if (layer)
            for (const gguf::ExpertTensor& entry : layer->experts)
                m_projection->addItem(QString::fromLatin1(gguf::projectionName(entry.projection)), static_cast<int>(entry.projection));
        const int row = previous.isValid() ? m_projection->findData(previous) : -1;
        m_projection->setCurrentIndex(std::max(row, 0));
    }
    showCurrentTensor();
}

void ExpertsPage::showCurrentTensor()
{
    const gguf::ExpertLayer* layer = currentLayer();
    const auto projection = static_cast<gguf::ExpertProjection>(m_projection->currentData().toInt());
    const gguf::TensorInfo* tensor = layer && m_projection->currentIndex() >= 0 ? layer->find(projection) : nullptr;
    if (!tensor)
        return;
    const bool sameCount = m_tensor && m_tensor->ne[2] == tensor->ne[2];
    m_tensor = tensor;
    const auto expertCount = static_cast<std::uint64_t>(tensor->ne[2]);
    // The user's choice of experts carries over to other layers with as many experts.
    if (!m_userChoseExperts || !sameCount) {
        m_userChoseExperts = false;
        m_shown = defaultExpertSelection(expertCount);
        m_selection->setText(formatExpertSelection(m_shown));
    }
    m_selection->setStyleSheet({});
    updateTensorLabel();
    m_statisticsModel->reset(expertCount);
    m_grid->setExperts(m_shown);
    m_grid->setMessage({});
    m_scan->start(m_model, tensor, m_shown);
    m_similarity->setTensors(m_model, tensor, layer->router);
    m_quantError->setTensor(m_model, tensor);
    if (m_extrasLayer != layer) {
        m_extrasLayer = layer;
        m_extras->setLayer(m_model, layer, expertCount);
    }
    if (m_layerHeatmapProjection != projection) {
        m_layerHeatmapProjection = projection;
        std::vector<LayerExpertHeatmap::LayerTensor> layers;
        for (const gguf::ExpertLayer& entry : m_index.layers())
            if (const gguf::TensorInfo* found = entry.find(projection))
                layers.push_back({entry.layer, found});
        m_layerHeatmap->setTensors(m_model, std::move(layers));
    }
}

void ExpertsPage::updateTensorLabel()
{
    const gguf::TensorInfo& t = *m_tensor;
    QString text = tr("<b>%1</b> · %2 · %3 experts of %4 rows × %5 columns · %6")
                       .arg(nameOf(t).toHtmlEscaped(), QString::fromStdString(gguf::typeName(t.typeId)))
                       .arg(t.ne[2])
                       .arg(t.ne[1])
                       .arg(t.ne[0])
                       .arg(QString::fromStdString(gguf::formatBytes(t.nbytes)));
    if (const auto used = m_index.expertsUsedPerToken())
        text += tr(" · %1 used per token").arg(*used);
    if (const gguf::ExpertLayer* layer = currentLayer(); layer && !layer->shared.empty()) {
        QStringList names;
        for (const gguf::TensorInfo* shared : layer->shared)
            names << nameOf(*shared).toHtmlEscaped();
        text += tr("<br>Shared experts in this layer (dense, always used): %1").arg(names.join(QStringLiteral(", ")));
    }
    if (const gguf::ExpertLayer* layer = currentLayer(); layer && !layer->biases.empty()) {
        QStringList names;
        for (const gguf::TensorInfo* bias : layer->biases)
            names << nameOf(*bias).toHtmlEscaped();
        text += tr("<br>Expert and router biases and scales: %1").arg(names.join(QStringLiteral(", ")));
    }
    m_tensorLabel->setText(text);
}

QString ExpertsPage::setExpertSelection(const QString& text)
{
    if (!m_tensor)
        return tr("the model has no experts");
    QString error;
    const auto experts = parseExpertSelection(text, static_cast<std::uint64_t>(m_tensor->ne[2]), &error);
    if (experts && experts->size() > kMaxTiles)
        error = tr("at most %1 experts can be shown side by side").arg(kMaxTiles);
    if (!experts || !error.isEmpty()) {
        m_selection->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #c00; }"));
        m_selection->setToolTip(error);
        return error;
    }
    m_selection->setStyleSheet({});
    m_selection->setToolTip(tr("Experts to show side by side: indices and ranges, e.g. 0-7,12"));
    {
        const QSignalBlocker blocker(m_selection);
        m_selection->setText(formatExpertSelection(*experts));
    }
    m_userChoseExperts = true;
    showExperts(*experts);
    return {};
}

void ExpertsPage::applySelectionEdit()
{
    setExpertSelection(m_selection->text());
}

void ExpertsPage::showExperts(const std::vector<std::uint64_t>& experts)
{
    if (experts == m_shown)
        return;
    m_shown = experts;
    m_grid->setExperts(m_shown);
    // Statistics of every expert are known or on their way; fill the new tiles from them.
    for (const std::uint64_t expert : m_shown)
        if (const auto& statistics = m_statisticsModel->statistics(expert))
            m_grid->showStatistics(*statistics);
    m_scan->requestHeatmaps(m_shown);
}

void ExpertsPage::requestOpen(std::uint64_t expert)
{
    if (m_tensor)
        emit openExpert(currentTensorIndex(), static_cast<int>(expert));
}

QString ExpertsPage::exportExperts(const std::vector<std::uint64_t>& experts, const QString& path)
{
    if (!m_tensor)
        return tr("no expert tensor selected");
    if (experts.empty())
        return tr("no expert chosen");
    for (const std::uint64_t expert : experts)
        if (expert >= static_cast<std::uint64_t>(m_tensor->ne[2]))
            return tr("expert %1 does not exist").arg(expert);
    // Exports run side by side: a second one does not cancel the first.
    BackgroundJob* job = m_exportJobs.runAlongside(
        [model = m_model, tensor = m_tensor, experts, format = formatForPath(path), target = path.toStdString()](const JobControl& control) {
            return exportExpertsFile(model, *tensor, experts, format, target, control);
        },
        [this, path](gguf::Ok) { emit exportFinished(true, tr("Exported %1").arg(path)); },
        [this](const JobOutcome& outcome) { emit exportFinished(false, outcome.message()); });
    m_progress->track(job, tr("Exporting %1").arg(QFileInfo(path).fileName()));
    return {};
}

void ExpertsPage::chooseExport(const std::vector<std::uint64_t>& experts)
{
    if (!m_tensor || experts.empty())
        return;
    const QString base = QStringLiteral("%1.expert%2%3").arg(nameOf(*m_tensor), experts.size() > 1 ? QStringLiteral("s") : QString(),
                                                            formatExpertSelection(experts));
    const QString proposed = proposedExportPath(QString::fromStdString(m_model->primary().path()), base + QStringLiteral(".npy"));
    const QString path = askSaveFileName(this, tr("Export experts"), proposed,
                                         tr("NumPy array (*.npy);;Raw little-endian f32 (*.f32 *.bin);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    if (const QString error = exportExperts(experts, path); !error.isEmpty())
        emit exportFinished(false, error);
}

void ExpertsPage::chooseSingleExport()
{
    if (!m_tensor)
        return;
    bool ok = false;
    const int expert = QInputDialog::getInt(this, tr("Export one expert"), tr("Expert:"), m_shown.empty() ? 0 : static_cast<int>(m_shown.front()), 0,
                                            static_cast<int>(std::min<std::int64_t>(m_tensor->ne[2] - 1, INT_MAX)), 1, &ok);
    if (ok)
        chooseExport({static_cast<std::uint64_t>(expert)});
}
