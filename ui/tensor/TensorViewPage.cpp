#include "ui/tensor/TensorViewPage.h"

#include "ui/common/FileDialogs.h"
#include "ui/common/ExportLocation.h"

#include "ui/session/BackgroundJob.h"
#include "ui/tensor/BlockInspector.h"
#include "ui/tensor/BlockScalesView.h"
#include "ui/tensor/DistributionView.h"
#include "ui/tensor/HeatmapView.h"
#include "core/base/HumanFormat.h"
#include "core/gguf/CompanionScales.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/PlotExport.h"
#include "ui/tensor/RowValuesView.h"
#include "ui/session/SliceExportJob.h"

#include <algorithm>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace {

QString shapeText(const gguf::TensorInfo& tensor)
{
    if (tensor.nDims == 0)
        return QObject::tr("scalar");
    QStringList dims;
    for (std::uint32_t d = 0; d < tensor.nDims; ++d)
        dims << QString::number(tensor.ne[d]);
    return QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
}
}  // namespace

TensorViewPage::TensorViewPage(QWidget* parent)
    : QWidget(parent), m_header(new QLabel(this)), m_expert(new QSpinBox(this)), m_expertLabel(new QLabel(tr("Expert:"), this)),
      m_tabs(new QTabWidget(this)), m_progress(new JobProgressBar(this))
{
    m_heatmap = new HeatmapView(m_progress, m_tabs);
    m_distribution = new DistributionView(m_progress, m_tabs);
    m_rowValues = new RowValuesView(m_progress, m_tabs);
    m_blockScales = new BlockScalesView(m_progress, m_tabs);
    m_inspector = new BlockInspector(m_progress, m_tabs);
    m_tabs->addTab(m_heatmap, tr("Heatmap"));
    m_tabs->addTab(m_distribution, tr("Distribution"));
    m_tabs->addTab(m_blockScales, tr("Block scales"));
    m_tabs->addTab(m_inspector, tr("Block inspector"));
    m_tabs->addTab(m_rowValues, tr("Row values"));
    // Clicking a weight shows its row's values and its block, without switching tabs.
    connect(m_heatmap, &HeatmapView::cellClicked, this, [this](std::uint64_t row, std::uint64_t column) {
        m_rowValues->showRow(row);
        const gguf::TypeTraits* traits = m_slice.slice.tensor ? m_slice.slice.tensor->traits : nullptr;
        if (traits)
            m_inspector->showBlock(row, column / traits->blockSize);
    });
    connect(m_blockScales, &BlockScalesView::blockClicked, this, [this](std::uint64_t row, std::uint64_t block) {
        m_inspector->showBlock(row, block);
        m_tabs->setCurrentWidget(m_inspector);
    });

    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The text is as wide as the tensor's name and shape; left to its size hint it would move
    // the splitter beside the page each time another tensor is selected. The tooltip has it all.
    m_header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_header->setMinimumWidth(0);
    // A long header (an expert tensor's name, shape and size beside the Expert picker) wraps
    // onto a second line instead of being cut.
    m_header->setWordWrap(true);
    m_header->setObjectName(QStringLiteral("tensorHeader"));
    m_expert->setObjectName(QStringLiteral("expertSpin"));
    connect(m_expert, &QSpinBox::valueChanged, this, &TensorViewPage::selectExpert);

    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("Values (.npy, .f32, .csv)…"), this, &TensorViewPage::chooseSliceExport);
    exportMenu->addAction(tr("Current plot (.png, .svg, .pdf)…"), this, &TensorViewPage::choosePlotExport);
    exportButton->setMenu(exportMenu);

    auto* top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(m_expertLabel);
    top->addWidget(m_expert);
    top->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_progress);
    setTensor(nullptr, nullptr);
}

void TensorViewPage::setTensor(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor)
{
    m_model = std::move(model);
    m_tensor = tensor;
    // Expert tensors ([n_in, n_out, n_expert]) open on one expert's matrix, as people read them.
    const bool experts = tensor && tensor->nDims == 3 && tensor->ne[2] > 1;
    m_expert->setVisible(experts);
    m_expertLabel->setVisible(experts);
    {
        const QSignalBlocker blocker(m_expert);
        m_expert->setRange(0, experts ? static_cast<int>(std::min<std::int64_t>(tensor->ne[2] - 1, INT_MAX)) : 0);
        m_expert->setValue(0);
        // How many there are, beside the one shown: the range alone is hidden in the arrows.
        m_expert->setSuffix(experts ? tr(" of %1").arg(tensor->ne[2]) : QString());
        m_expert->setToolTip(experts ? tr("Expert index, 0 to %1").arg(tensor->ne[2] - 1) : QString());
    }
    selectExpert(experts ? 0 : -1);
}

void TensorViewPage::selectExpertIndex(int expert)
{
    if (m_expert->isVisible() || (m_tensor && m_tensor->nDims == 3 && m_tensor->ne[2] > 1))
        m_expert->setValue(std::clamp(expert, 0, m_expert->maximum()));
}

void TensorViewPage::selectExpert(int expert)
{
    m_slice = {};
    if (m_tensor) {
        m_slice.model = m_model;
        if (expert >= 0) {
            auto slice = gguf::expertSlice(*m_tensor, static_cast<std::uint64_t>(expert));
            m_slice.slice = slice ? slice.value() : gguf::wholeTensor(*m_tensor);
            if (slice)
                m_slice.expert = static_cast<std::uint64_t>(expert);
        } else {
            m_slice.slice = gguf::wholeTensor(*m_tensor);
        }
    }
    updateHeader();
    m_heatmap->setSlice(m_slice);
    m_distribution->setSlice(m_slice);
    m_rowValues->setSlice(m_slice);
    m_blockScales->setSlice(m_slice);
    m_inspector->setSlice(m_slice);
}

void TensorViewPage::updateHeader()
{
    if (!m_tensor) {
        m_header->setText(tr("Select a tensor to see its weights."));
        m_header->setToolTip(QString());
        return;
    }
    const gguf::TensorInfo& t = *m_tensor;
    const QString bpw = t.traits ? QString::fromStdString(gguf::formatFixed(t.traits->bitsPerWeight(), 3)) : QStringLiteral("?");
    QString text = tr("<b>%1</b> &nbsp; %2 &nbsp; %3 &nbsp; %4 bits/weight &nbsp; %5 &nbsp; data offset %6")
                       .arg(m_slice.tensorName().toHtmlEscaped(), QString::fromStdString(gguf::typeName(t.typeId)), shapeText(t), bpw,
                            QString::fromStdString(gguf::formatBytes(t.nbytes)))
                       .arg(t.offset);
    if (!t.traits || !t.traits->dequantize)
        text += tr("<br><font color=#b00>%1 cannot be dequantized by this build; its bytes are shown as listed.</font>")
                    .arg(QString::fromStdString(gguf::typeName(t.typeId)));
    else if (t.elementCount() == 0)
        text += tr("<br>This tensor is empty (0 elements).");
    // A companion scale: every view here shows the effective values (CompanionScales.h).
    const std::string companions =
        m_model ? gguf::companionSummary(t, m_slice.expert, [this](std::string_view name) { return m_model->findTensor(name); }) : std::string();
    if (!companions.empty())
        text += QStringLiteral("<br>") + QString::fromStdString(companions).toHtmlEscaped();
    m_header->setText(text);
    m_header->setToolTip(text);
}

QString TensorViewPage::exportSlice(const QString& path)
{
    if (!m_slice.isValid())
        return tr("no tensor selected");
    const QString suffix = QFileInfo(path).suffix().toLower();
    const gguf::ExportFormat format = suffix == QLatin1String("npy") ? gguf::ExportFormat::Npy
                                    : suffix == QLatin1String("csv") ? gguf::ExportFormat::Csv
                                                                     : gguf::ExportFormat::RawF32;
    // Exports run side by side: a second one does not cancel the first.
    BackgroundJob* job = m_exportJobs.runAlongside(
        [slice = m_slice, format, target = path.toStdString()](const JobControl& control) { return exportSliceFile(slice, format, target, control); },
        [this, path](gguf::Ok) { emit exportFinished(true, tr("Exported %1").arg(path)); },
        [this](const JobOutcome& outcome) { emit exportFinished(false, outcome.message()); });
    m_progress->track(job, tr("Exporting %1").arg(QFileInfo(path).fileName()));
    return {};
}

void TensorViewPage::chooseSliceExport()
{
    if (!m_slice.isValid())
        return;
    QString base = m_slice.tensorName();
    if (m_slice.expert)
        base += QStringLiteral(".expert%1").arg(*m_slice.expert);
    const QString path = askSaveFileName(this, tr("Export values"), proposedExportPath(modelPath(), base + QStringLiteral(".npy")),
                                                      tr("NumPy array (*.npy);;Raw little-endian f32 (*.f32 *.bin);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    exportSlice(path);
}

QCustomPlot* TensorViewPage::currentPlot(QString* what) const
{
    QWidget* tab = m_tabs->currentWidget();
    const auto name = [&](const QString& text) {
        if (what)
            *what = text;
    };
    if (tab == m_heatmap) {
        name(QStringLiteral("heatmap"));
        return m_heatmap->plot();
    }
    if (tab == m_distribution) {
        name(QStringLiteral("distribution"));
        return m_distribution->plot();
    }
    if (tab == m_blockScales) {
        // The one the user is looking at: histograms, scale map or min map.
        QCustomPlot* plot = m_blockScales->visiblePlot();
        name(plot == m_blockScales->heatmapPlot()      ? QStringLiteral("scale-map")
             : plot == m_blockScales->minHeatmapPlot() ? QStringLiteral("min-map")
                                                       : QStringLiteral("scale-histograms"));
        return plot;
    }
    return nullptr;
}

QString TensorViewPage::modelPath() const
{
    return m_model ? QString::fromStdString(m_model->primary().path()) : QString();
}

QString TensorViewPage::plotTitle() const
{
    if (!m_tensor)
        return {};
    return tr("%1 · %2 · %3").arg(m_slice.tensorName(), QFileInfo(modelPath()).fileName(), QString::fromStdString(gguf::typeName(m_tensor->typeId)));
}

QString TensorViewPage::proposedPlotPath() const
{
    QString what;
    if (!currentPlot(&what) || !m_slice.isValid())
        return {};
    QString base = m_slice.tensorName();
    if (m_slice.expert)
        base += QStringLiteral(".expert%1").arg(*m_slice.expert);
    return proposedExportPath(modelPath(), QStringLiteral("%1.%2.png").arg(base, what));
}

QString TensorViewPage::exportCurrentPlot(const QString& path)
{
    QCustomPlot* plot = currentPlot();
    if (!plot)
        return tr("this tab has no plot");
    return exportPlot(plot, path, 0, 0, plotTitle());
}

void TensorViewPage::choosePlotExport()
{
    if (!currentPlot())
        return;
    const QString path = askSaveFileName(this, tr("Export plot"), proposedPlotPath(),
                                                      tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    const QString error = exportCurrentPlot(path);
    emit exportFinished(error.isEmpty(), error.isEmpty() ? tr("Saved %1").arg(path) : error);
}
