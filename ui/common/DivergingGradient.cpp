#include "ui/common/DivergingGradient.h"

#include <cmath>

QCPColorGradient divergingGradient()
{
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(5, 48, 97));
    gradient.setColorStopAt(0.25, QColor(67, 147, 195));
    gradient.setColorStopAt(0.5, QColor(247, 247, 247));
    gradient.setColorStopAt(0.75, QColor(214, 96, 77));
    gradient.setColorStopAt(1.0, QColor(103, 0, 31));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    // Left undrawn: a plot shows what is under it (hatchUndefinedCells), never a colour that
    // could be read off the scale.
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(512);
    return gradient;
}

QCPRange symmetricRange(const float* values, std::size_t count)
{
    double largest = 0.0;
    for (std::size_t i = 0; i < count; ++i)
        if (std::isfinite(values[i]))
            largest = std::max(largest, static_cast<double>(std::fabs(values[i])));
    if (largest == 0.0)
        largest = 1.0;
    return QCPRange(-largest, largest);
}
