#include "ui/common/ColourRangeBox.h"

#include "ui/common/ColourScales.h"

#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace {
constexpr int kManual = -1;
}  // namespace

ColourRangeBox::ColourRangeBox(const QString& name, QWidget* parent)
    : QWidget(parent), m_mode(new QComboBox(this)), m_low(new QLineEdit(this)), m_high(new QLineEdit(this))
{
    // The item data is the percentile of |x| the bar ends at (100: the largest value).
    m_mode->addItem(tr("Full range"), 100.0);
    m_mode->addItem(tr("Clip at 99.9 %"), 99.9);
    m_mode->addItem(tr("Clip at 99 %"), 99.0);
    m_mode->addItem(tr("Manual"), kManual);
    m_mode->setCurrentIndex(1);
    m_mode->setToolTip(tr("What the ends of the colour bar stand for: the largest |value| shown, a percentile of |value| "
                          "(values beyond it take the end colours), or a range you type"));
    m_mode->setObjectName(name + QStringLiteral("Mode"));
    for (QLineEdit* edit : {m_low, m_high}) {
        auto* validator = new QDoubleValidator(edit);
        validator->setNotation(QDoubleValidator::ScientificNotation);
        validator->setLocale(QLocale::c());
        edit->setValidator(validator);
        edit->setMaximumWidth(edit->fontMetrics().horizontalAdvance(QStringLiteral("-0.000000e-00")));
        edit->setVisible(false);
        connect(edit, &QLineEdit::editingFinished, this, &ColourRangeBox::changed);
    }
    m_low->setObjectName(name + QStringLiteral("Low"));
    m_high->setObjectName(name + QStringLiteral("High"));
    m_low->setPlaceholderText(tr("low"));
    m_high->setPlaceholderText(tr("high"));
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this]() {
        m_low->setVisible(isManual());
        m_high->setVisible(isManual());
        emit changed();
    });

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Colours:"), this));
    layout->addWidget(m_mode);
    layout->addWidget(m_low);
    layout->addWidget(m_high);
}

bool ColourRangeBox::isManual() const
{
    return m_mode->currentData().toDouble() == kManual;
}

void ColourRangeBox::setManualRange(double low, double high)
{
    m_low->setText(QString::number(low, 'g', 9));
    m_high->setText(QString::number(high, 'g', 9));
    m_mode->setCurrentIndex(m_mode->findData(kManual));
    emit changed();
}

QCPRange ColourRangeBox::rangeFor(const float* values, std::size_t count, bool oneSided) const
{
    if (isManual()) {
        bool lowOk = false, highOk = false;
        const double low = QLocale::c().toDouble(m_low->text(), &lowOk);
        const double high = QLocale::c().toDouble(m_high->text(), &highOk);
        if (lowOk && highOk && low < high)
            return QCPRange(low, high);
    }
    const double percent = isManual() ? 100.0 : m_mode->currentData().toDouble();
    double top = percent >= 100.0 ? absMaximum(values, count) : absPercentile(values, count, percent);
    if (top == 0.0)  // a percentile of mostly zeros: the values that are not zero still get colours
        top = absMaximum(values, count);
    if (top == 0.0)
        top = 1.0;
    return oneSided ? QCPRange(0.0, top) : QCPRange(-top, top);
}
