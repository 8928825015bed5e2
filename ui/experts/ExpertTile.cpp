#include "ui/experts/ExpertTile.h"

#include "ui/common/PlotExportMenu.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"

#include "ui/common/DivergingGradient.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace {
constexpr int kTileSize = 180;

QString shortNumber(double value)
{
    return QString::number(value, 'g', 3);
}
}  // namespace

ExpertTile::ExpertTile(std::uint64_t expert, QWidget* parent)
    : QWidget(parent), m_expert(expert), m_plot(new QCustomPlot(this))
{
    followPalette(m_plot);
    setObjectName(QStringLiteral("expertTile%1").arg(expert));
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(kTileSize, kTileSize);
    setToolTip(tr("Click to open expert %1 in the tensor view; right-click to export it").arg(expert));

    // A thumbnail: no axes or ticks, only the title and the weights (rows top to bottom).
    m_plot->setFocusPolicy(Qt::NoFocus);
    m_plot->axisRect()->setAutoMargins(QCP::msNone);
    m_plot->axisRect()->setMargins(QMargins(2, 2, 2, 2));
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis})
        axis->setVisible(false);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(), QFont(font().family(), 9));
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setGradient(divergingGradient());
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        if (event->button() == Qt::LeftButton)
            emit openRequested(m_expert);
    });

    plotreadout::install(m_plot, [this](const plotreadout::Pointer& at) { return readout(at.x, at.y); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(1, 1, 1, 1);
    layout->addWidget(m_plot);
    updateTitle();
}

const std::vector<float>& ExpertTile::cells() const
{
    static const std::vector<float> none;
    return m_cells ? *m_cells : none;
}

void ExpertTile::setHeatmap(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells)
{
    m_grid = grid;
    m_cells = std::move(cells);
    m_error.clear();
    const gguf::HeatmapRegion& r = grid.region;
    const double cellWidth = static_cast<double>(r.columnEnd - r.columnBegin) / grid.columns;
    const double cellHeight = static_cast<double>(r.rowEnd - r.rowBegin) / grid.rows;
    auto* mapData = new QCPColorMapData(static_cast<int>(grid.columns), static_cast<int>(grid.rows),
                                     QCPRange(r.columnBegin + cellWidth / 2 - 0.5, r.columnEnd - cellWidth / 2 - 0.5),
                                     QCPRange(r.rowBegin + cellHeight / 2 - 0.5, r.rowEnd - cellHeight / 2 - 0.5));
    for (std::uint32_t row = 0; row < grid.rows; ++row)
        for (std::uint32_t column = 0; column < grid.columns; ++column)
            mapData->setCell(static_cast<int>(column), static_cast<int>(row), (*m_cells)[static_cast<std::size_t>(row) * grid.columns + column]);
    m_map->setData(mapData);
    m_plot->xAxis->setRange(static_cast<double>(r.columnBegin) - 0.5, static_cast<double>(r.columnEnd) - 0.5);
    m_plot->yAxis->setRange(static_cast<double>(r.rowBegin) - 0.5, static_cast<double>(r.rowEnd) - 0.5);
    updateTitle();
}

void ExpertTile::setFigures(double rms, double maxAbs)
{
    m_figures = std::make_pair(rms, maxAbs);
    updateTitle();
}

void ExpertTile::setError(const QString& error)
{
    m_error = error;
    setToolTip(error);
    updateTitle();
}

void ExpertTile::setColorRange(const QCPRange& range)
{
    m_map->setDataRange(range);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString ExpertTile::readout(double x, double y) const
{
    if (!m_cells || m_grid.rows == 0 || m_grid.columns == 0)
        return {};
    const gguf::HeatmapRegion& r = m_grid.region;
    const auto rows = plotreadout::spanAt(y, r.rowBegin, r.rowEnd, m_grid.rows);
    const auto columns = plotreadout::spanAt(x, r.columnBegin, r.columnEnd, m_grid.columns);
    if (!rows || !columns)
        return {};
    const float value = (*m_cells)[static_cast<std::size_t>(rows->cell) * m_grid.columns + columns->cell];
    return tr("expert %1, %2").arg(m_expert).arg(plotreadout::matrixCell(*rows, *columns, m_grid.aggregate, value));
}

QString ExpertTile::title() const
{
    QString text = tr("Expert %1").arg(m_expert);
    if (!m_error.isEmpty())
        return text + tr(" · failed");
    if (m_figures)
        text += tr("\nrms %1 · max |w| %2").arg(shortNumber(m_figures->first), shortNumber(m_figures->second));
    else
        text += tr("\n…");
    return text;
}

void ExpertTile::updateTitle()
{
    m_title->setText(title());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ExpertTile::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter || event->key() == Qt::Key_Space) {
        emit openRequested(m_expert);
        return;
    }
    QWidget::keyPressEvent(event);
}

void ExpertTile::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    menu.addAction(tr("Open expert %1 in the tensor view").arg(m_expert), this, [this]() { emit openRequested(m_expert); });
    menu.addAction(tr("Export expert %1…").arg(m_expert), this, [this]() { emit exportRequested(m_expert); });
    if (hasPlotExport(m_plot))
        addPlotExportAction(&menu, m_plot);
    menu.exec(event->globalPos());
}
