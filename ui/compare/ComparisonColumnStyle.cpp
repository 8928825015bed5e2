#include "ui/compare/ComparisonColumnStyle.h"

#include "ui/common/QuantTypeColour.h"
#include "ui/session/ComparisonColumnTitle.h"

#include <QPainter>
#include <QPixmap>

namespace {
bool isSimulated(const gguf::ModelComparison& comparison, std::size_t column)
{
    return comparison.columns()[column].kind == gguf::ComparisonColumn::Kind::Simulated;
}
}  // namespace

QColor comparisonColumnColour(const gguf::ModelComparison& comparison, std::size_t column)
{
    const QColor base = quantTypeColour(comparisonColumnType(comparison, column));
    const int repeat = comparisonColumnTypeRepeat(comparison, column);
    if (repeat == 0)
        return base;
    // Alternately darker and lighter, further each time: 2nd darker, 3rd lighter, 4th darker still.
    const int step = 100 + 45 * ((repeat + 1) / 2);
    return repeat % 2 == 1 ? base.darker(step) : base.lighter(step);
}

QPen comparisonColumnPen(const gguf::ModelComparison& comparison, std::size_t column, double width)
{
    QPen pen(comparisonColumnColour(comparison, column), width);
    if (isSimulated(comparison, column))
        pen.setStyle(Qt::DashLine);
    return pen;
}

QBrush comparisonColumnBrush(const gguf::ModelComparison& comparison, std::size_t column)
{
    return QBrush(comparisonColumnColour(comparison, column), isSimulated(comparison, column) ? Qt::BDiagPattern : Qt::SolidPattern);
}

QIcon comparisonColumnSwatch(const gguf::ModelComparison& comparison, std::size_t column)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setPen(Qt::NoPen);
    painter.setBrush(comparisonColumnColour(comparison, column));
    painter.drawRect(1, 1, 10, 10);
    if (isSimulated(comparison, column)) {  // a white stripe: the dashed line of the charts
        painter.setPen(QPen(Qt::white, 2));
        painter.drawLine(2, 10, 10, 2);
    }
    return QIcon(pixmap);
}
