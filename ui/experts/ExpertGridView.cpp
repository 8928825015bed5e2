#include "ui/experts/ExpertGridView.h"

#include "ui/common/PlotExportMenu.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"

#include "ui/common/DivergingGradient.h"
#include "ui/experts/ExpertTile.h"

#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {
// Four columns keep up to 16 tiles in a square block; more tiles get a squarer grid.
int columnsFor(std::size_t tileCount)
{
    return tileCount <= 16 ? 4 : static_cast<int>(std::ceil(std::sqrt(static_cast<double>(tileCount))));
}
}  // namespace

ExpertGridView::ExpertGridView(QWidget* parent)
    : QWidget(parent), m_message(new QLabel(this)), m_scalePlot(new QCustomPlot(this)), m_tileArea(new QWidget)
{
    followPalette(m_scalePlot);
    m_message->setObjectName(QStringLiteral("expertGridMessage"));
    m_message->setWordWrap(true);
    m_message->hide();

    // The shared colour scale alone, as a horizontal bar above the tiles.
    m_scalePlot->setObjectName(QStringLiteral("expertColorScale"));
    m_scalePlot->plotLayout()->clear();
    m_scale = new QCPColorScale(m_scalePlot);
    m_scale->setType(QCPAxis::atBottom);
    m_scale->setGradient(divergingGradient());
    m_scale->setLabel(tr("weight (mean per cell), shared by all tiles"));
    m_scalePlot->plotLayout()->addElement(0, 0, m_scale);
    m_scalePlot->setFixedHeight(62);
    // The value under the pointer on the bar: what colour stands for which weight.
    plotreadout::installAtPixels(m_scalePlot, [this](const QPointF& at) {
        if (m_colorLimit <= 0.0 || !m_scale->axis() || !m_scale->axis()->axisRect()->rect().contains(at.toPoint()))
            return QString();
        return tr("weight %1\n(the colour scale of every tile: %2 to %3)")
            .arg(plotreadout::number(m_scale->axis()->pixelToCoord(at.x()), false), plotreadout::number(-m_colorLimit, false),
                 plotreadout::number(m_colorLimit, false));
    });

    m_tileLayout = new QGridLayout(m_tileArea);
    m_tileLayout->setSpacing(6);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_tileArea);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_message);
    layout->addWidget(m_scalePlot);
    layout->addWidget(scroll, 1);
    applyColorLimit();
}

void ExpertGridView::setExperts(const std::vector<std::uint64_t>& experts)
{
    for (auto& entry : m_tiles)
        delete entry.second;
    m_tiles.clear();
    m_colorLimit = 0.0;
    const int columns = columnsFor(experts.size());
    int position = 0;
    for (const std::uint64_t expert : experts) {
        auto* added = new ExpertTile(expert, m_tileArea);
        connect(added, &ExpertTile::openRequested, this, &ExpertGridView::openRequested);
        connect(added, &ExpertTile::exportRequested, this, &ExpertGridView::exportRequested);
        // The tile keeps its own menu; the chart export joins it (ExpertTile::contextMenuEvent).
        addPlotExport(added->plot(), [this, expert]() { return m_tileTitle ? m_tileTitle(expert) : tr("Expert %1").arg(expert); }, false);
        m_tileLayout->addWidget(added, position / columns, position % columns);
        m_tiles.emplace(expert, added);
        ++position;
    }
    applyColorLimit();
}

void ExpertGridView::showHeatmap(std::uint64_t expert, const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells)
{
    ExpertTile* target = tile(expert);
    if (!target)
        return;
    const QCPRange range = symmetricRange(cells->data(), cells->size());
    target->setHeatmap(grid, std::move(cells));
    // symmetricRange() answers ±1 for an all-zero expert; only real magnitudes widen the scale.
    if (std::any_of(target->cells().begin(), target->cells().end(), [](float v) { return std::isfinite(v) && v != 0.0f; }))
        m_colorLimit = std::max(m_colorLimit, range.upper);
    applyColorLimit();
}

void ExpertGridView::showStatistics(const gguf::ExpertStatistics& statistics)
{
    if (ExpertTile* target = tile(statistics.expert))
        target->setFigures(statistics.statistics.rms, statistics.maxAbs);
}

void ExpertGridView::showError(std::uint64_t expert, const QString& error)
{
    if (ExpertTile* target = tile(expert))
        target->setError(error);
}

void ExpertGridView::setMessage(const QString& message)
{
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

ExpertTile* ExpertGridView::tile(std::uint64_t expert) const
{
    const auto found = m_tiles.find(expert);
    return found == m_tiles.end() ? nullptr : found->second;
}

std::vector<ExpertTile*> ExpertGridView::tiles() const
{
    std::vector<ExpertTile*> result;
    for (const auto& entry : m_tiles)
        result.push_back(entry.second);
    return result;
}

void ExpertGridView::applyColorLimit()
{
    const double limit = m_colorLimit > 0.0 ? m_colorLimit : 1.0;
    const QCPRange range(-limit, limit);
    m_scale->setDataRange(range);
    for (const auto& entry : m_tiles)
        entry.second->setColorRange(range);
    m_scalePlot->replot(QCustomPlot::rpQueuedReplot);
}
