#include "ui/common/PlotPalette.h"

#include <QEvent>
#include <qcustomplot.h>

namespace {

QColor blend(const QColor& from, const QColor& to, double t)
{
    return QColor::fromRgbF(static_cast<float>(from.redF() + (to.redF() - from.redF()) * t),
                            static_cast<float>(from.greenF() + (to.greenF() - from.greenF()) * t),
                            static_cast<float>(from.blueF() + (to.blueF() - from.blueF()) * t));
}

void colourAxis(QCPAxis* axis, const QColor& text, const QColor& grid, const QColor& zeroLine)
{
    axis->setBasePen(QPen(text, 0));
    axis->setTickPen(QPen(text, 0));
    axis->setSubTickPen(QPen(text, 0));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(grid, 0, Qt::DotLine));
    // A category axis (text ticks) has no zero: its first category sits at 0, and a zero line
    // there is a stray rule through the first bar.
    const bool categories = !axis->ticker().dynamicCast<QCPAxisTickerText>().isNull();
    axis->grid()->setZeroLinePen(categories ? QPen(Qt::NoPen) : QPen(zeroLine, 0));
}

// Replots when the application or the widget switches palette (a theme change at run time).
class PaletteChangeWatcher : public QObject {
public:
    explicit PaletteChangeWatcher(QCustomPlot* plot) : QObject(plot), m_plot(plot) { plot->installEventFilter(this); }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == m_plot && event->type() == QEvent::PaletteChange)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        return false;
    }

private:
    QCustomPlot* m_plot;
};

}  // namespace

void applyPlotPalette(QCustomPlot* plot)
{
    const QPalette& palette = plot->palette();
    const QColor background = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::WindowText);
    const QColor grid = blend(background, text, 0.25);
    const QColor zeroLine = blend(background, text, 0.45);
    plot->setBackground(background);
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (auto* rect = qobject_cast<QCPAxisRect*>(element)) {
            for (QCPAxis* axis : rect->axes())
                colourAxis(axis, text, grid, zeroLine);
            // Legends live in the axis rect's inset layout.
            for (QCPLayoutElement* inset : rect->insetLayout()->elements(false))
                if (auto* legend = qobject_cast<QCPLegend*>(inset)) {
                    legend->setBrush(background);
                    legend->setBorderPen(QPen(grid, 0));
                    legend->setTextColor(text);
                    for (int i = 0; i < legend->itemCount(); ++i)
                        legend->item(i)->setTextColor(text);
                }
        } else if (auto* scale = qobject_cast<QCPColorScale*>(element)) {
            colourAxis(scale->axis(), text, grid, zeroLine);
        } else if (auto* title = qobject_cast<QCPTextElement*>(element)) {
            title->setTextColor(text);
        } else if (auto* legend = qobject_cast<QCPLegend*>(element)) {
            legend->setBrush(background);
            legend->setBorderPen(QPen(grid, 0));
            legend->setTextColor(text);
        }
    }
}

void followPalette(QCustomPlot* plot)
{
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot]() { applyPlotPalette(plot); });
    new PaletteChangeWatcher(plot);
    applyPlotPalette(plot);
}
