#pragma once
// Ticks for a logarithmic axis that always label enough values to read it: whole decades when
// the range spans several (0.001, 0.01, 0.1, 1), 1-2-5 steps within them when it spans one or
// two (0.02, 0.05, 0.1, 0.2), and every step 1..9 when it spans less. QCPAxisTickerLog labels
// only powers of its base: a drift chart between 0.03 and 0.3 showed "0.1" alone.

#include <qcustomplot.h>

class LogAxisTicker : public QCPAxisTicker {
public:
    // Installs a LogAxisTicker on `axis` and makes its scale logarithmic.
    static void install(QCPAxis* axis);

    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                  QVector<double>* subTicks, QVector<QString>* tickLabels) override;

    // The labelled values within [lower, upper] (both > 0), smallest first.
    static QVector<double> tickValues(double lower, double upper);
};
