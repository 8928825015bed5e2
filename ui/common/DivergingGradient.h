#pragma once
// Blue-white-red colour scale centred on zero: weights are signed, and the eye should find both
// large negative and large positive values. NaN is transparent (see ColourScales.h).

#include <qcustomplot.h>

QCPColorGradient divergingGradient();
// A symmetric range [-m, m] covering the finite values, so zero is always white.
QCPRange symmetricRange(const float* values, std::size_t count);
