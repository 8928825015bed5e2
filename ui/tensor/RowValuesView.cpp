#include "ui/tensor/RowValuesView.h"

#include "ui/session/BackgroundJob.h"
#include "core/gguf/Dequantize.h"
#include "ui/common/JobProgressBar.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

RowValuesView::RowValuesView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_row(new QSpinBox(this)), m_count(new QSpinBox(this)), m_table(new QTableWidget(this))
{
    m_row->setObjectName(QStringLiteral("rowSpin"));
    m_count->setObjectName(QStringLiteral("countSpin"));
    m_count->setRange(1, 65536);
    m_count->setValue(64);
    m_table->setObjectName(QStringLiteral("valuesTable"));
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Column"), tr("Value"), tr("Bits (f32)")});
    m_table->verticalHeader()->hide();
    // Index and bits have a known widest text; the value column gets the rest, so a 9-digit
    // value with exponent is never cut or wrapped.
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideNone);
    const QFontMetrics metrics(m_table->font());
    const int padding = 3 * metrics.averageCharWidth();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Fixed);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Fixed);
    m_table->setColumnWidth(0, std::max(metrics.horizontalAdvance(QStringLiteral("65535")), metrics.horizontalAdvance(tr("Column"))) + padding);
    m_table->setColumnWidth(2, std::max(metrics.horizontalAdvance(QStringLiteral("0x00000000")), metrics.horizontalAdvance(tr("Bits (f32)"))) + padding);
    m_table->horizontalHeader()->setMinimumSectionSize(0);
    m_table->setMinimumWidth(m_table->columnWidth(0) + m_table->columnWidth(2) + metrics.horizontalAdvance(QStringLiteral("-1.23456789e-38")) + padding);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_row, &QSpinBox::valueChanged, this, &RowValuesView::load);
    connect(m_count, &QSpinBox::valueChanged, this, &RowValuesView::load);

    auto* form = new QFormLayout;
    form->addRow(tr("Row:"), m_row);
    form->addRow(tr("First N values:"), m_count);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_table, 1);
}

void RowValuesView::setSlice(const SliceRef& slice)
{
    m_slice = slice;
    const QSignalBlocker blocker(m_row);
    const std::uint64_t rows = slice.isValid() ? slice.slice.rowCount : 0;
    m_row->setRange(0, static_cast<int>(std::min<std::uint64_t>(rows ? rows - 1 : 0, INT_MAX)));
    m_row->setValue(0);
    load();
}

void RowValuesView::showRow(std::uint64_t row)
{
    m_row->setValue(static_cast<int>(std::min<std::uint64_t>(row, static_cast<std::uint64_t>(m_row->maximum()))));
}

void RowValuesView::load()
{
    m_jobs.renew();
    m_table->setRowCount(0);
    m_values.clear();
    if (!m_slice.isValid() || m_slice.slice.elementCount() == 0)
        return;
    const gguf::TensorInfo& tensor = *m_slice.slice.tensor;
    const std::uint64_t row = m_slice.slice.firstRow + static_cast<std::uint64_t>(m_row->value());
    // Only the blocks holding the first N values of the row are dequantized.
    const std::uint64_t blockSize = tensor.traits ? tensor.traits->blockSize : 1;
    const std::uint64_t wanted = std::min<std::uint64_t>(static_cast<std::uint64_t>(m_count->value()), m_slice.slice.rowLength());
    const std::uint64_t covered = std::min<std::uint64_t>((wanted + blockSize - 1) / blockSize * blockSize, m_slice.slice.rowLength());
    const SliceRef slice = m_slice;
    BackgroundJob* job = m_jobs.run(
        [slice, row, covered](const JobControl&) -> gguf::Result<std::vector<float>> {
            std::vector<float> values(static_cast<std::size_t>(covered));
            const std::uint64_t begin = row * slice.slice.rowLength();
            if (gguf::Status s = gguf::dequantizeElements(*slice.slice.tensor, begin, begin + values.size(), values); !s)
                return s.error();
            return values;
        },
        [this, wanted](std::vector<float> values) { showValues(values, wanted); },
        [this](const JobOutcome& outcome) {
            m_table->setRowCount(1);
            m_table->setItem(0, 1, new QTableWidgetItem(outcome.message()));
        });
    m_progress->track(job, tr("Row %1 of %2").arg(m_row->value()).arg(slice.label()));
}

void RowValuesView::showValues(const std::vector<float>& values, std::uint64_t wanted)
{
    m_values.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(wanted));
    m_table->setRowCount(static_cast<int>(m_values.size()));
    for (int i = 0; i < static_cast<int>(m_values.size()); ++i) {
        const float value = m_values[static_cast<std::size_t>(i)];
        m_table->setItem(i, 0, new QTableWidgetItem(QString::number(i)));
        m_table->setItem(i, 1, new QTableWidgetItem(QString::number(static_cast<double>(value), 'g', 9)));
        m_table->setItem(i, 2, new QTableWidgetItem(QStringLiteral("0x%1").arg(std::bit_cast<quint32>(value), 8, 16, QLatin1Char('0'))));
    }
    emit valuesReady();
}
