#include "ui/common/FittedAxisTicker.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>

FittedAxisTicker::FittedAxisTicker(QCPAxis* axis, int maximumTickCount) : m_axis(axis), m_maximumTickCount(std::max(1, maximumTickCount))
{
    setTickCount(m_maximumTickCount);
}

void FittedAxisTicker::install(QCPAxis* axis, int maximumTickCount)
{
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new FittedAxisTicker(axis, maximumTickCount)));
}

void FittedAxisTicker::generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                                QVector<double>* subTicks, QVector<QString>* tickLabels)
{
    // The labels are needed to measure them, even when the axis does not draw them.
    QVector<QString> labels;
    for (int count = m_maximumTickCount; count >= 1; --count) {
        setTickCount(count);
        labels.clear();
        QCPAxisTicker::generate(range, locale, formatChar, precision, ticks, subTicks, &labels);
        if (labelsApart(range, ticks, labels))
            break;
    }
    if (tickLabels)
        *tickLabels = labels;
}

double FittedAxisTicker::axisLength(const QCPAxis* axis)
{
    const QCPAxisRect* rect = axis->axisRect();
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    // The plot's viewport already has the new size; when the rect spans it (one column or row of
    // axis rects), the new length is the viewport less the last margins.
    const QCPLayoutGrid* layout = axis->parentPlot()->plotLayout();
    const QRect viewport = axis->parentPlot()->viewport();
    if (horizontal && layout->columnCount() == 1)
        return viewport.width() - (rect->outerRect().width() - rect->width());
    if (!horizontal && layout->rowCount() == 1)
        return viewport.height() - (rect->outerRect().height() - rect->height());
    return horizontal ? rect->width() : rect->height();
}

// Neighbouring labels, centred on their ticks, are at least two digits apart.
bool FittedAxisTicker::labelsApart(const QCPRange& range, const QVector<double>& ticks, const QVector<QString>& labels) const
{
    if (ticks.size() < 2 || m_axis->scaleType() != QCPAxis::stLinear || range.size() <= 0)
        return true;
    const QFontMetrics metrics(m_axis->tickLabelFont());
    const bool horizontal = m_axis->orientation() == Qt::Horizontal;
    const double gap = 2.0 * metrics.horizontalAdvance(QLatin1Char('0'));
    const auto extent = [&](const QString& label) {
        const QRect box = metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignCenter, label);
        return horizontal ? box.width() : box.height();
    };
    const double pixelsPerUnit = axisLength(m_axis) / range.size();
    for (qsizetype i = 1; i < ticks.size(); ++i) {
        const double apart = std::abs(ticks[i] - ticks[i - 1]) * pixelsPerUnit;
        if (apart < (extent(labels[i - 1]) + extent(labels[i])) / 2.0 + gap)
            return false;
    }
    return true;
}
