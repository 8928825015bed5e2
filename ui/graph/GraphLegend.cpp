#include "ui/graph/GraphLegend.h"

#include "core/types/GgmlType.h"
#include "ui/common/QuantTypeColour.h"

#include <QLinearGradient>
#include <QPainter>

namespace {

QString figureText(double value)
{
    return QString::number(value, 'g', 3);
}

}  // namespace

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("graphLegend"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void GraphLegend::showTypes(std::vector<int> typeIds)
{
    m_types = std::move(typeIds);
    m_scale = false;
    updateGeometry();
    update();
}

void GraphLegend::showScale(double minimum, double maximum, bool logarithmic, std::function<QColor(double)> colourAt)
{
    m_scale = true;
    m_minimum = minimum;
    m_maximum = maximum;
    m_logarithmic = logarithmic;
    m_colourAt = std::move(colourAt);
    update();
}

void GraphLegend::setNoFigureColour(QColor colour)
{
    m_noFigure = colour;
    update();
}

QSize GraphLegend::sizeHint() const
{
    return {400, fontMetrics().height() + 10};
}

void GraphLegend::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const int h = fontMetrics().height();
    const int swatch = h - 2;
    int x = 4;
    const int y = (height() - swatch) / 2;
    const auto drawKey = [&](const QColor& colour, const QString& text) {
        painter.setPen(palette().color(QPalette::Mid));
        painter.setBrush(colour);
        painter.drawRect(x, y, swatch, swatch);
        x += swatch + 4;
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x, 0, fontMetrics().horizontalAdvance(text) + 2, height()), Qt::AlignVCenter, text);
        x += fontMetrics().horizontalAdvance(text) + 14;
    };
    if (!m_scale) {
        for (int type : m_types) {
            const gguf::TypeTraits* traits = gguf::findType(static_cast<std::uint32_t>(type));
            drawKey(quantTypeColour(static_cast<std::uint32_t>(type)),
                    traits ? QString::fromLatin1(traits->name) : QStringLiteral("type %1").arg(type));
        }
    } else if (m_colourAt) {
        const QString low = figureText(m_minimum);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x, 0, fontMetrics().horizontalAdvance(low) + 2, height()), Qt::AlignVCenter, low);
        x += fontMetrics().horizontalAdvance(low) + 6;
        const int barWidth = 160;
        QLinearGradient gradient(x, 0, x + barWidth, 0);
        for (int i = 0; i <= 10; ++i)
            gradient.setColorAt(i / 10.0, m_colourAt(i / 10.0));
        painter.setPen(palette().color(QPalette::Mid));
        painter.setBrush(gradient);
        painter.drawRect(x, y, barWidth, swatch);
        x += barWidth + 6;
        const QString high = figureText(m_maximum) + (m_logarithmic ? tr(" (log scale)") : QString());
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(x, 0, fontMetrics().horizontalAdvance(high) + 2, height()), Qt::AlignVCenter, high);
        x += fontMetrics().horizontalAdvance(high) + 18;
    }
    drawKey(m_noFigure, m_scale ? tr("no figure") : tr("no tensor"));
}
