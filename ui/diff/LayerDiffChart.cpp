#include "ui/diff/LayerDiffChart.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPlaceholder.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

LayerDiffChart::LayerDiffChart(QWidget* parent) : QWidget(parent), m_figure(new QComboBox(this)), m_plot(new QCustomPlot(this))
{
    followPalette(m_plot);
    m_figure->setObjectName(QStringLiteral("layerDiffFigure"));
    m_plot->setObjectName(QStringLiteral("layerDiffPlot"));
    m_placeholder = new PlotPlaceholder(m_plot);
    addPlotExport(m_plot, [this]() {
        const QString chart = tr("%1 per layer").arg(m_figure->currentText());
        return m_exportSubject.isEmpty() ? chart : tr("%1: %2").arg(chart, m_exportSubject);
    });
    m_figure->addItem(tr("Relative RMSE"), int(Figure::RelativeRmse));
    m_figure->addItem(tr("RMSE"), int(Figure::Rmse));
    m_figure->addItem(tr("Max |error|"), int(Figure::MaxAbsError));
    m_figure->addItem(tr("1 − cosine similarity"), int(Figure::CosineDistance));
    connect(m_figure, &QComboBox::currentIndexChanged, this, &LayerDiffChart::rebuild);
    m_plot->xAxis->setLabel(tr("layer (blk.N)"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Per layer, B against A:"), this));
    controls->addWidget(m_figure);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
}

QString LayerDiffChart::placeholderText() const
{
    return m_placeholder->text();
}

double LayerDiffChart::figureOf(const gguf::ErrorMetrics& metrics, Figure figure)
{
    switch (figure) {
    case Figure::RelativeRmse: return metrics.relativeRmse;
    case Figure::Rmse: return metrics.rmse;
    case Figure::MaxAbsError: return metrics.maxAbsError;
    case Figure::CosineDistance: return 1.0 - metrics.cosineSimilarity;
    }
    return std::nan("");
}

void LayerDiffChart::setDiff(const gguf::ModelDiff* diff)
{
    m_diff = diff;
    rebuild();
}

void LayerDiffChart::rebuild()
{
    m_plot->clearPlottables();
    m_bars.clear();
    if (!m_diff) {
        m_placeholder->show(tr("The per-layer chart appears once the diff is done."));
        m_plot->replot();
        return;
    }
    const auto figure = static_cast<Figure>(m_figure->currentData().toInt());
    QVector<double> keys;
    QVector<double> values;
    for (const gguf::LayerDifference& layer : m_diff->layers) {
        if (!layer.layer || layer.metrics.count == 0)
            continue;
        const double value = figureOf(layer.metrics, figure);
        if (!std::isfinite(value))
            continue;
        keys << *layer.layer;
        values << value;
        m_bars << QPointF(*layer.layer, value);
    }
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(m_figure->currentText());
    bars->setData(keys, values, true);
    bars->setWidth(0.7);
    bars->setBrush(QColor(0x1f77b4));
    bars->setPen(Qt::NoPen);
    m_plot->yAxis->setLabel(m_figure->currentText());
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(m_plot->xAxis->range().lower - 1, m_plot->xAxis->range().upper + 1);
    m_plot->yAxis->setRangeLower(0);
    const bool anyAboveZero = std::any_of(values.begin(), values.end(), [](double value) { return value > 0.0; });
    const bool anyLayer = std::any_of(m_diff->layers.begin(), m_diff->layers.end(), [](const gguf::LayerDifference& layer) { return layer.layer.has_value(); });
    if (keys.isEmpty() && anyLayer)
        m_placeholder->show(tr("No layer differs: the tensors of every layer (blk.N) have identical bytes in A and B."));
    else if (keys.isEmpty())
        m_placeholder->show(tr("No layer to chart: neither file has tensors of a layer (blk.N)."));
    else if (!anyAboveZero)
        m_placeholder->show(tr("Every layer's tensors are identical in A and B: %1 is 0 for all %n layer(s).", nullptr, static_cast<int>(keys.size()))
                                .arg(m_figure->currentText()));
    else
        m_placeholder->hide();
    m_plot->replot();
}
