#include "ui/tensor/BlockInspector.h"

#include "ui/session/BackgroundJob.h"
#include "ui/session/BlockDisassembly.h"
#include "ui/common/JobProgressBar.h"

#include <QFormLayout>
#include <QSpinBox>
#include <QTextBrowser>
#include <QVBoxLayout>

BlockInspector::BlockInspector(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_row(new QSpinBox(this)), m_block(new QSpinBox(this)), m_view(new QTextBrowser(this))
{
    m_row->setObjectName(QStringLiteral("inspectorRow"));
    m_block->setObjectName(QStringLiteral("inspectorBlock"));
    m_view->setObjectName(QStringLiteral("inspectorText"));
    connect(m_row, &QSpinBox::valueChanged, this, &BlockInspector::load);
    connect(m_block, &QSpinBox::valueChanged, this, &BlockInspector::load);
    auto* form = new QFormLayout;
    form->addRow(tr("Row:"), m_row);
    form->addRow(tr("Block in row:"), m_block);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_view, 1);
}

QString BlockInspector::text() const
{
    return m_view->toPlainText();
}

void BlockInspector::setSlice(const SliceRef& slice)
{
    m_slice = slice;
    const QSignalBlocker rowBlocker(m_row);
    const QSignalBlocker blockBlocker(m_block);
    const gguf::TensorInfo* tensor = slice.slice.tensor;
    const std::uint64_t rows = slice.isValid() ? slice.slice.rowCount : 0;
    const std::uint64_t blocks = tensor && tensor->traits ? slice.slice.rowLength() / tensor->traits->blockSize : 0;
    m_row->setRange(0, static_cast<int>(std::min<std::uint64_t>(rows ? rows - 1 : 0, INT_MAX)));
    m_block->setRange(0, static_cast<int>(std::min<std::uint64_t>(blocks ? blocks - 1 : 0, INT_MAX)));
    m_row->setValue(0);
    m_block->setValue(0);
    load();
}

void BlockInspector::showBlock(std::uint64_t row, std::uint64_t blockInRow)
{
    const QSignalBlocker rowBlocker(m_row);
    m_row->setValue(static_cast<int>(std::min<std::uint64_t>(row, static_cast<std::uint64_t>(m_row->maximum()))));
    m_block->setValue(static_cast<int>(std::min<std::uint64_t>(blockInRow, static_cast<std::uint64_t>(m_block->maximum()))));
    load();
}

void BlockInspector::load()
{
    m_jobs.renew();
    m_view->clear();
    if (!m_slice.isValid() || m_slice.slice.elementCount() == 0) {
        m_view->setPlainText(m_slice.isValid() ? tr("This tensor is empty.") : QString());
        return;
    }
    const SliceRef slice = m_slice;
    const auto row = static_cast<std::uint64_t>(m_row->value());
    const auto block = static_cast<std::uint64_t>(m_block->value());
    BackgroundJob* job = m_jobs.run(
        [slice, row, block](const JobControl&) { return BlockDisassembly::read(slice, row, block); },
        [this, slice](const BlockDisassembly& read) {
            m_view->setHtml(read.toHtml(*slice.slice.tensor));
            emit blockShown();
        },
        [this](const JobOutcome& outcome) {
            m_view->setHtml(outcome.message().toHtmlEscaped());
            emit blockShown();
        });
    m_progress->track(job, tr("Block %1 of row %2").arg(block).arg(row));
}
