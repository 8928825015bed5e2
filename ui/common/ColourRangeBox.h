#pragma once
// How a heatmap stretches its colour bar over the values shown: the full range (±max|x|), a
// percentile of |x| (default 99.9 %, so one outlier cannot paint the rest white; the few values
// beyond it take the end colours), or a range typed in. A one-sided scale (a magnitude) runs from
// zero to the same top.

#include <qcustomplot.h>

#include <QWidget>

class QComboBox;
class QLineEdit;

class ColourRangeBox : public QWidget {
    Q_OBJECT
public:
    // Object names: `name` + "Mode", "Low", "High".
    explicit ColourRangeBox(const QString& name, QWidget* parent = nullptr);

    // The range for `values`: symmetric about zero, or [0, top] when `oneSided`. A manual range
    // is taken as typed once both ends are numbers and low < high.
    QCPRange rangeFor(const float* values, std::size_t count, bool oneSided) const;
    // Index 0: full range; 1: 99.9 %; 2: 99 %; 3: manual.
    QComboBox* mode() const { return m_mode; }
    void setManualRange(double low, double high);

signals:
    void changed();

private:
    bool isManual() const;

    QComboBox* m_mode;
    QLineEdit* m_low;
    QLineEdit* m_high;
};
