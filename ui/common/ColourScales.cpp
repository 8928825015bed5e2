#include "ui/common/ColourScales.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {
constexpr std::size_t kPercentileSample = std::size_t{1} << 20;
}  // namespace

QCPColorGradient magnitudeGradient()
{
    // The upper half of the diverging scale: zero is the same white on both.
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(247, 247, 247));
    gradient.setColorStopAt(0.5, QColor(214, 96, 77));
    gradient.setColorStopAt(1.0, QColor(103, 0, 31));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(512);
    return gradient;
}

QCPColorGradient sequentialGradient()
{
    // Viridis, sampled at five stops: perceptually even, readable in grey, and neither end white.
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(68, 1, 84));
    gradient.setColorStopAt(0.25, QColor(59, 82, 139));
    gradient.setColorStopAt(0.5, QColor(33, 145, 140));
    gradient.setColorStopAt(0.75, QColor(94, 201, 98));
    gradient.setColorStopAt(1.0, QColor(253, 231, 37));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(512);
    return gradient;
}

void hatchUndefinedCells(QCustomPlot* plot)
{
    plot->axisRect()->setBackground(QBrush(QColor(128, 128, 128, 110), Qt::BDiagPattern));
}

double absPercentile(const float* values, std::size_t count, double percent)
{
    const std::size_t stride = std::max<std::size_t>(1, count / kPercentileSample);
    std::vector<float> magnitudes;
    magnitudes.reserve(count / stride + 1);
    for (std::size_t i = 0; i < count; i += stride)
        if (std::isfinite(values[i]))
            magnitudes.push_back(std::fabs(values[i]));
    if (magnitudes.empty())
        return 0.0;
    const double rank = std::ceil(std::clamp(percent, 0.0, 100.0) / 100.0 * static_cast<double>(magnitudes.size())) - 1.0;
    const auto k = static_cast<std::size_t>(std::clamp(rank, 0.0, static_cast<double>(magnitudes.size() - 1)));
    std::nth_element(magnitudes.begin(), magnitudes.begin() + static_cast<std::ptrdiff_t>(k), magnitudes.end());
    return magnitudes[k];
}

double absMaximum(const float* values, std::size_t count)
{
    double largest = 0.0;
    for (std::size_t i = 0; i < count; ++i)
        if (std::isfinite(values[i]))
            largest = std::max(largest, static_cast<double>(std::fabs(values[i])));
    return largest;
}
