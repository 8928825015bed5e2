#include "ui/recipe/ScanHeatmapPlot.h"
#include "ui/common/PlotReadout.h"

#include "core/base/EscapedText.h"
#include "core/types/GgmlType.h"
#include "ui/common/ColourScales.h"
#include "ui/common/PlotPalette.h"

#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace {

// Labels on at most about `most` of the `count` ticks, so 80 layers do not print over each other.
QSharedPointer<QCPAxisTickerText> textTicker(const std::vector<QString>& labels, std::size_t most)
{
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const std::size_t step = std::max<std::size_t>(1, (labels.size() + most - 1) / most);
    for (std::size_t i = 0; i < labels.size(); i += step)
        ticker->addTick(double(i), labels[i]);
    return ticker;
}

}  // namespace

ScanHeatmapPlot::ScanHeatmapPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)), m_hover(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot->setObjectName(QStringLiteral("scanHeatmap"));
    m_plot->setMinimumSize(320, 240);
    m_plot->axisRect()->setupFullAxesBox(true);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->xAxis->setTickLabelRotation(60);
    m_plot->xAxis->setLabel(tr("role"));
    // Cells are the data: no grid lines drawn through them.
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis})
        axis->grid()->setVisible(false);
    m_plot->yAxis->setLabel(tr("layer"));
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setVisible(false);  // no cells until show() has some: its default cells would be one solid square
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setDataScaleType(QCPAxis::stLogarithmic);
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    m_scale->axis()->setNumberFormat(QStringLiteral("gb"));
    m_scale->axis()->setNumberPrecision(2);
    m_scale->axis()->setLabel(tr("mean KLD when only this group is quantized"));
    m_map->setColorScale(m_scale);
    QCPColorGradient gradient = sequentialGradient();
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    m_map->setGradient(gradient);
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    hatchUndefinedCells(m_plot);
    followPalette(m_plot);
    layout->addWidget(m_plot, 1);
    m_hover->setObjectName(QStringLiteral("scanHover"));
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_hover);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        showHover(event->position().toPoint(), event->globalPosition().toPoint());
    });
}

void ScanHeatmapPlot::show(std::shared_ptr<const gguf::ScanRecord> record, std::uint32_t type)
{
    m_record = std::move(record);
    m_grid = m_record ? gguf::buildScanGrid(*m_record, type) : gguf::ScanGrid{};
    const int columns = int(m_grid.roles.size());
    const int rows = int(m_grid.layers.size());
    m_map->data()->setSize(std::max(columns, 1), std::max(rows, 1));
    m_map->data()->setRange(QCPRange(0, std::max(columns - 1, 0)), QCPRange(0, std::max(rows - 1, 0)));
    // Empty cells are NaN (hatched); a KLD of exactly 0 (a type as good as the reference on these
    // tokens) cannot sit on a log scale and is drawn at the smallest positive figure.
    double low = std::numeric_limits<double>::infinity(), high = 0.0;
    for (const auto& row : m_grid.cells)
        for (const auto& cell : row)
            if (cell && m_record->figures[*cell]->meanKld > 0) {
                low = std::min(low, m_record->figures[*cell]->meanKld);
                high = std::max(high, m_record->figures[*cell]->meanKld);
            }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c) {
            const auto& cell = m_grid.cells[std::size_t(r)][std::size_t(c)];
            const double kld = cell ? std::max(m_record->figures[*cell]->meanKld, std::isfinite(low) ? low : 1e-12) : std::nan("");
            m_map->data()->setCell(c, r, kld);
        }
    if (!std::isfinite(low))
        low = high = 1e-6;
    // Nothing measured for this type (or no scan): no cells at all. The one cell the map keeps
    // would otherwise paint the whole plot as one solid square of a KLD nobody measured.
    const bool empty = rows == 0 || columns == 0;
    if (empty)
        m_map->data()->setCell(0, 0, std::nan(""));
    m_map->setVisible(!empty);
    m_map->setDataRange(QCPRange(low, high > low ? high : low * 10));
    std::vector<QString> roleLabels, layerLabels;
    for (const std::string& role : m_grid.roles)
        roleLabels.push_back(QString::fromStdString(gguf::escapeForDisplay(role)));
    for (std::size_t r = 0; r < m_grid.layers.size(); ++r)
        layerLabels.push_back(QString::fromStdString(m_grid.layerLabel(r)));
    m_plot->xAxis->setTicker(textTicker(roleLabels, 40));
    m_plot->yAxis->setTicker(textTicker(layerLabels, 24));
    m_plot->xAxis->setRange(-0.5, std::max(columns, 1) - 0.5);
    m_plot->yAxis->setRange(-0.5, std::max(rows, 1) - 0.5);
    m_hover->setText(empty && m_record ? tr("No probe of %1 in this scan.").arg(QString::fromStdString(gguf::typeName(type))) : QString());
    m_plot->replot();
}

QString ScanHeatmapPlot::cellText(std::size_t row, std::size_t column) const
{
    if (!m_record || row >= m_grid.cells.size() || column >= m_grid.roles.size() || !m_grid.cells[row][column])
        return {};
    const std::size_t probe = *m_grid.cells[row][column];
    const gguf::ProbeFigures& f = *m_record->figures[probe];
    const gguf::ScanGroup& group = m_record->groups[m_record->probes[probe].group];
    // The planner's cost is the mean; the trimmed mean (without a few routed positions) beside it.
    const QString trimmed = f.trimmedKld ? tr("trimmed mean %1").arg(*f.trimmedKld, 0, 'g', 4) : tr("no trimmed mean in this file");
    return tr("%1 as %2: mean KLD %3 ± %4 (the planner's cost; %5), top-1 agreement %6 %, Δp %7 (%8 positions)")
        .arg(QString::fromStdString(gguf::escapeForDisplay(group.tensor)), QString::fromStdString(gguf::typeName(m_grid.type)))
        .arg(f.meanKld, 0, 'g', 4)
        .arg(f.kldStandardError, 0, 'g', 2)
        .arg(trimmed)
        .arg(100.0 * f.sameTopFraction, 0, 'f', 2)
        .arg(f.meanDeltaTopProbability, 0, 'g', 3)
        .arg(f.positions);
}

QString ScanHeatmapPlot::textAt(const QPoint& position) const
{
    if (m_grid.roles.empty() || !m_plot->axisRect()->rect().contains(position))
        return {};
    const double x = std::round(m_plot->xAxis->pixelToCoord(position.x()));
    const double y = std::round(m_plot->yAxis->pixelToCoord(position.y()));
    if (x < 0 || y < 0)
        return {};
    return cellText(std::size_t(y), std::size_t(x));
}

QString ScanHeatmapPlot::hoverText() const
{
    return m_hover->text();
}

void ScanHeatmapPlot::showHover(const QPoint& position, const QPoint& global)
{
    const QString text = textAt(position);
    m_hover->setText(text);
    plotreadout::publish(m_plot, text);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(global, text, m_plot);
}
