#pragma once
// Ticks for a heatmap's rows (or columns) that carry their own labels (layer numbers): every
// row when the axis has room, else every 2nd, 5th, 10th, 20th… row, so that the labels never
// overlap (94 layer numbers on a 400 px axis ran into one another).

#include <qcustomplot.h>

class ThinnedRowTicker : public QCPAxisTicker {
public:
    // `axis` is the axis this ticker is set on; row i (at coordinate i) is labelled labels[i].
    ThinnedRowTicker(QCPAxis* axis, QVector<QString> labels);

    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                  QVector<double>* subTicks, QVector<QString>* tickLabels) override;

    // The step between labelled rows when each row is `pixelsPerRow` apart and a label needs
    // `labelPixels` (1, 2, 5, 10, 20, 50…).
    static int stepFor(double pixelsPerRow, double labelPixels);

private:
    QCPAxis* m_axis;
    QVector<QString> m_labels;
};
