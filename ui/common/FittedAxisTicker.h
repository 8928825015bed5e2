#pragma once
// An axis ticker whose tick count follows the room the axis has: as many ticks, up to a maximum,
// as let every label sit apart from its neighbours in the axis's tick-label font. A fixed count
// that suits a wide plot runs its labels together on a narrow one ("0.000250.00050.00075"); this
// one drops ticks instead, down to one if it must.

#include <qcustomplot.h>

class FittedAxisTicker : public QCPAxisTicker {
public:
    // `axis` is the axis this ticker is set on (it reads its font, rect and plot); it must outlive
    // the ticker's use, as an axis outlives its ticker.
    FittedAxisTicker(QCPAxis* axis, int maximumTickCount);
    // Installs a FittedAxisTicker on `axis`.
    static void install(QCPAxis* axis, int maximumTickCount);
    // `axis`'s length in pixels for the layout being made (ticks are made before the layout
    // places the axis rect, so after a resize the rect still has its old size).
    static double axisLength(const QCPAxis* axis);

    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                  QVector<double>* subTicks, QVector<QString>* tickLabels) override;

private:
    bool labelsApart(const QCPRange& range, const QVector<double>& ticks, const QVector<QString>& labels) const;

    QCPAxis* m_axis;
    int m_maximumTickCount;
};
