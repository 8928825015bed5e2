#include "ui/diff/LayerDiffChart.h"

#include "ui/common/FittedAxisTicker.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPlaceholder.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {

// Layer numbers on 1-2-5 steps (never between two layers), and "other" at one key past the
// last layer where the tensors outside the layers stand; a layer label that "other" would
// overlap is left out ("93" ran into it).
class LayerAxisTicker : public QCPAxisTicker {
public:
    explicit LayerAxisTicker(QCPAxis* axis) : m_axis(axis) {}
    void setOtherKey(std::optional<double> key) { m_otherKey = key; }

protected:
    double getTickStep(const QCPRange& range) override
    {
        return std::max(1.0, cleanMantissa(range.size() / (tickCount() + 1e-10)));
    }
    int getSubTickCount(double) override { return 0; }
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override
    {
        QVector<double> ticks;
        const double last = m_otherKey ? *m_otherKey - 1.0 : range.upper;
        for (double tick = std::max(0.0, std::ceil(range.lower / tickStep) * tickStep); tick <= std::min(range.upper, last); tick += tickStep)
            ticks << tick;
        if (m_otherKey && range.contains(*m_otherKey)) {
            const QFontMetrics metrics(m_axis->tickLabelFont());
            const double pixelsPerKey = FittedAxisTicker::axisLength(m_axis) / std::max(range.size(), 1e-9);
            const double otherHalf = metrics.horizontalAdvance(LayerDiffChart::tr("other")) / 2.0;
            const double gap = metrics.horizontalAdvance(QStringLiteral("00"));
            while (!ticks.isEmpty()) {
                const double labelHalf = metrics.horizontalAdvance(QString::number(std::llround(ticks.last()))) / 2.0;
                if ((*m_otherKey - ticks.last()) * pixelsPerKey >= otherHalf + labelHalf + gap)
                    break;
                ticks.removeLast();
            }
            ticks << *m_otherKey;
        }
        return ticks;
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override
    {
        return m_otherKey && tick == *m_otherKey ? LayerDiffChart::tr("other") : QString::number(std::llround(tick));
    }

private:
    QCPAxis* m_axis;
    std::optional<double> m_otherKey;
};

}  // namespace

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
    // Sideways only: the figure's axis keeps its zero and the tallest bar in view.
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->xAxis->setTicker(QSharedPointer<LayerAxisTicker>::create(m_plot->xAxis));
    // The bar under the pointer: its layer (or the tensors outside the layers) and its figure.
    plotreadout::install(m_plot, [this](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            m_plot, at.x,
            [this](const plotreadout::KeyedPoint& point) {
                return m_other && point.key == m_otherKey ? tr("other: the tensors outside the layers (B against A)")
                                                          : tr("blk.%1: its compared tensors (B against A)").arg(std::llround(point.key));
            },
            [](double value) { return plotreadout::number(value, false); });
    });

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
    m_other.reset();
    if (!m_diff) {
        m_placeholder->show(tr("The per-layer chart appears once the diff is done."));
        m_plot->replot();
        return;
    }
    const auto figure = static_cast<Figure>(m_figure->currentData().toInt());
    QVector<double> keys;
    QVector<double> values;
    double lastLayer = -1.0;
    for (const gguf::LayerDifference& layer : m_diff->layers)
        if (layer.layer)
            lastLayer = std::max(lastLayer, static_cast<double>(*layer.layer));
    m_otherKey = lastLayer + 1.0;
    for (const gguf::LayerDifference& layer : m_diff->layers) {
        if (layer.metrics.count == 0)
            continue;
        const double value = figureOf(layer.metrics, figure);
        if (!std::isfinite(value))
            continue;
        keys << (layer.layer ? static_cast<double>(*layer.layer) : m_otherKey);
        values << value;
        if (layer.layer)
            m_bars << QPointF(*layer.layer, value);
        else
            m_other = value;
    }
    auto ticker = m_plot->xAxis->ticker().dynamicCast<LayerAxisTicker>();
    ticker->setOtherKey(m_other ? std::optional<double>(m_otherKey) : std::nullopt);
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(m_figure->currentText());
    bars->setData(keys, values, true);
    bars->setWidth(0.7);
    bars->setBrush(QColor(0x1f77b4));
    bars->setPen(Qt::NoPen);
    m_plot->yAxis->setLabel(m_figure->currentText());
    // Every layer (and "other") in view with half a bar of room at each end; zero at the bottom
    // and a tenth of the tallest bar above it.
    const double lastKey = m_other ? m_otherKey : std::max(lastLayer, 0.0);
    m_plot->xAxis->setRange(-0.6, lastKey + 0.6);
    const double tallest = values.isEmpty() ? 0.0 : *std::max_element(values.begin(), values.end());
    m_plot->yAxis->setRange(0.0, tallest > 0.0 ? tallest * 1.1 : 1.0);
    const bool anyAboveZero = std::any_of(values.begin(), values.end(), [](double value) { return value > 0.0; });
    const bool anyLayer = std::any_of(m_diff->layers.begin(), m_diff->layers.end(), [](const gguf::LayerDifference& layer) { return layer.layer.has_value(); });
    if (keys.isEmpty() && anyLayer)
        m_placeholder->show(tr("No layer differs: the tensors of every layer (blk.N) have identical bytes in A and B."));
    else if (keys.isEmpty())
        m_placeholder->show(tr("No layer to chart: neither file has tensors of a layer (blk.N)."));
    else if (!anyAboveZero)
        m_placeholder->show(tr("Every layer's tensors are identical in A and B: %1 is 0 for all %n layer(s).", nullptr, static_cast<int>(m_bars.size()))
                                .arg(m_figure->currentText()));
    else
        m_placeholder->hide();
    m_plot->replot();
}
