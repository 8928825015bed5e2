#include "ui/common/ThinnedRowTicker.h"

#include "ui/common/FittedAxisTicker.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>
#include <utility>

ThinnedRowTicker::ThinnedRowTicker(QCPAxis* axis, QVector<QString> labels) : m_axis(axis), m_labels(std::move(labels)) {}

int ThinnedRowTicker::stepFor(double pixelsPerRow, double labelPixels)
{
    if (!(pixelsPerRow > 0.0))
        return 1;
    for (int decade = 1; decade < (1 << 24); decade *= 10)
        for (const int factor : {1, 2, 5})
            if (factor * decade * pixelsPerRow >= labelPixels)
                return factor * decade;
    return 1 << 24;
}

void ThinnedRowTicker::generate(const QCPRange& range, const QLocale&, QChar, int, QVector<double>& ticks, QVector<double>* subTicks,
                                QVector<QString>* tickLabels)
{
    ticks.clear();
    if (subTicks)
        subTicks->clear();
    if (tickLabels)
        tickLabels->clear();
    if (m_labels.isEmpty() || !(range.size() > 0.0))
        return;
    const QFontMetrics metrics(m_axis->tickLabelFont());
    const bool horizontal = m_axis->orientation() == Qt::Horizontal;
    int widest = 0;
    for (const QString& label : m_labels)
        widest = std::max(widest, metrics.horizontalAdvance(label));
    // A label's extent along the axis, and a gap of half a line (or two digits) to the next.
    const double labelPixels = horizontal ? widest + 2.0 * metrics.horizontalAdvance(QLatin1Char('0')) : 1.5 * metrics.height();
    const int step = stepFor(FittedAxisTicker::axisLength(m_axis) / range.size(), labelPixels);
    const auto last = static_cast<int>(m_labels.size()) - 1;
    const int first = std::max(0, static_cast<int>(std::ceil(range.lower / step)) * step);
    for (int row = first; row <= last && row <= range.upper; row += step) {
        ticks << row;
        if (tickLabels)
            *tickLabels << m_labels[row];
    }
}
