#include "ui/common/LogAxisTicker.h"

#include <cmath>

void LogAxisTicker::install(QCPAxis* axis)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<LogAxisTicker>::create());
}

QVector<double> LogAxisTicker::tickValues(double lower, double upper)
{
    QVector<double> values;
    if (!(lower > 0.0) || !(upper >= lower) || !std::isfinite(upper))
        return values;
    const double decades = std::log10(upper / lower);
    // Mantissas labelled in each decade: fewer as the range widens, so labels stay apart.
    QVector<int> mantissas{1};
    if (decades <= 1.0 + 1e-9)
        mantissas = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    else if (decades < 3.0)
        mantissas = {1, 2, 5};
    // Every other decade, or fewer, when there are very many.
    const int decadeStep = decades > 12.0 ? static_cast<int>(std::ceil(decades / 8.0)) : 1;
    const int first = static_cast<int>(std::floor(std::log10(lower)));
    const int last = static_cast<int>(std::ceil(std::log10(upper)));
    for (int exponent = first; exponent <= last; ++exponent) {
        if (decadeStep > 1 && exponent % decadeStep != 0)
            continue;
        const double decade = std::pow(10.0, exponent);
        for (const int mantissa : mantissas) {
            const double value = mantissa * decade;
            // A little slack at the ends: a range that ends at 0.1 still labels 0.1.
            if (value >= lower * (1.0 - 1e-9) && value <= upper * (1.0 + 1e-9))
                values << value;
        }
    }
    return values;
}

void LogAxisTicker::generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                             QVector<double>* subTicks, QVector<QString>* tickLabels)
{
    ticks = tickValues(range.lower, range.upper);
    if (subTicks)
        subTicks->clear();
    if (tickLabels) {
        tickLabels->clear();
        for (const double value : ticks)
            *tickLabels << getTickLabel(value, locale, formatChar, precision);
    }
}
