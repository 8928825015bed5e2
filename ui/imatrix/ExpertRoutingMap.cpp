#include "ui/imatrix/ExpertRoutingMap.h"
#include "ui/common/PlotReadout.h"

#include "ui/common/ColourScales.h"

#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

ExpertRoutingMap::ExpertRoutingMap(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_plot(new QCustomPlot(this)), m_rare(new QListWidget(this))
{
    setObjectName(QStringLiteral("expertRoutingMap"));
    m_summary->setObjectName(QStringLiteral("routingSummary"));
    m_summary->setWordWrap(true);
    m_plot->setObjectName(QStringLiteral("routingPlot"));
    m_rare->setObjectName(QStringLiteral("rareExperts"));
    m_plot->setMinimumHeight(180);
    m_plot->axisRect()->setupFullAxesBox(true);
    m_plot->xAxis->setLabel(tr("expert"));
    m_plot->yAxis->setLabel(tr("layer"));
    m_plot->yAxis->setRangeReversed(true);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    auto* scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, scale);
    scale->axis()->setLabel(tr("share of an even split (log10)"));
    m_map->setColorScale(scale);
    m_map->setGradient(sequentialGradient());  // gpThermal's top was white on the white page
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) { showCellUnder(event->position().toPoint()); });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_plot, 3);
    layout->addWidget(m_rare, 1);
}

QString ExpertRoutingMap::cellText(int expert, int row) const
{
    if (row < 0 || expert < 0 || static_cast<std::size_t>(row) >= m_routing.layers.size() || static_cast<std::size_t>(expert) >= m_routing.expertCount)
        return {};
    const gguf::RoutingLayer& layer = m_routing.layers[static_cast<std::size_t>(row)];
    const double tokens = static_cast<std::size_t>(expert) < layer.tokens.size() ? layer.tokens[static_cast<std::size_t>(expert)] : 0.0;
    const double even = layer.tokens.empty() ? 0.0 : layer.totalTokens / static_cast<double>(layer.tokens.size());
    QString text = tr("layer %1, expert %2: %3 tokens").arg(layer.layer).arg(expert).arg(tokens, 0, 'f', 0);
    if (even > 0.0)
        text += tr(", %1% of an even share (%2 tokens)").arg(100.0 * tokens / even, 0, 'f', 1).arg(even, 0, 'f', 0);
    if (!(tokens > 0.0))
        text += tr(" — never routed: llama-quantize used weight 1");
    return text;
}

void ExpertRoutingMap::showCellUnder(const QPoint& position)
{
    const int expert = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(position.x())));
    const int row = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(position.y())));
    const QString text = m_plot->axisRect()->rect().contains(position) ? cellText(expert, row) : QString();
    m_plot->setToolTip(text);
    plotreadout::publish(m_plot, text);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(position), text, m_plot);
}

void ExpertRoutingMap::setRouting(const gguf::ExpertRouting& routing)
{
    m_routing = routing;
    m_rare->clear();
    m_plot->clearItems();
    m_markers = 0;
    if (!routing.known()) {
        m_summary->setText(tr("No per-expert routing counts: the matrix has no expert tensors, or it is in the legacy format, "
                              "which keeps one count per tensor."));
        m_map->data()->clear();
        m_plot->setVisible(false);
        m_rare->setVisible(false);
        return;
    }
    m_plot->setVisible(true);
    m_rare->setVisible(true);
    const auto layers = static_cast<int>(routing.layers.size());
    const auto experts = static_cast<int>(routing.expertCount);
    m_map->data()->setSize(experts, layers);
    m_map->data()->setRange(QCPRange(0, experts - 1), QCPRange(0, layers - 1));
    for (int l = 0; l < layers; ++l) {
        const gguf::RoutingLayer& layer = routing.layers[static_cast<std::size_t>(l)];
        const double even = layer.totalTokens / static_cast<double>(layer.tokens.size());
        for (int e = 0; e < experts; ++e) {
            const double tokens = static_cast<std::size_t>(e) < layer.tokens.size() ? layer.tokens[static_cast<std::size_t>(e)] : 0.0;
            // Never routed: the floor of the scale (1/1000 of an even share).
            m_map->data()->setCell(e, l, even > 0.0 && tokens > 0.0 ? std::log10(tokens / even) : -3.0);
        }
    }
    m_map->setDataRange(QCPRange(-2.0, 1.0));
    // The y axis reads layer numbers, not row indices.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int l = 0; l < layers; ++l)
        ticker->addTick(l, QString::number(routing.layers[static_cast<std::size_t>(l)].layer));
    m_plot->yAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.5, experts - 0.5);
    m_plot->yAxis->setRange(-0.5, layers - 0.5);
    for (const gguf::RarelyRoutedExpert& rare : routing.rare) {
        int row = 0;
        while (row < layers && routing.layers[static_cast<std::size_t>(row)].layer != rare.layer)
            ++row;
        auto* marker = new QCPItemText(m_plot);
        marker->position->setCoords(rare.expert, row);
        marker->setText(rare.tokens <= 0.0 ? QStringLiteral("!") : QStringLiteral("*"));
        marker->setColor(Qt::white);
        QFont bold = marker->font();
        bold.setBold(true);
        marker->setFont(bold);
        ++m_markers;
        m_rare->addItem(rare.tokens <= 0.0
                            ? tr("layer %1, expert %2: never routed — its importance is unknown (llama-quantize used weight 1)")
                                  .arg(rare.layer).arg(rare.expert)
                            : tr("layer %1, expert %2: %3 tokens, %4% of an even share")
                                  .arg(rare.layer).arg(rare.expert).arg(rare.tokens, 0, 'f', 0).arg(rare.shareOfEven * 100.0, 0, 'f', 1));
    }
    m_summary->setText(tr("%n layer(s) × %1 experts. Marked: never (!) or rarely (*) routed, below %2% of an even share; %3 such expert(s).",
                          nullptr, layers)
                           .arg(experts)
                           .arg(routing.rareShare * 100.0, 0, 'f', 0)
                           .arg(routing.rare.size()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}
