#include "shell/ConvertDialog.h"

#include "session/BackgroundJob.h"
#include "quantize/Conversion.h"
#include "quantize/Quantize.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
constexpr int kPreviewDebounceMs = 300;
constexpr int kProgressPollMs = 100;
}

ConvertDialog::ConvertDialog(std::shared_ptr<const gguf::Model> input, QWidget* parent)
    : QDialog(parent), m_input(std::move(input)), m_output(new QLineEdit(this)), m_type(new QComboBox(this)),
      m_pattern(new QLineEdit(this)), m_preview(new QTreeWidget(this)), m_warnings(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_convert(new QPushButton(tr("Convert"), this)), m_cancel(new QPushButton(tr("Close"), this)), m_previewDebounce(new QTimer(this)),
      m_progressPoll(new QTimer(this))
{
    setWindowTitle(tr("Convert Model"));
    m_output->setObjectName(QStringLiteral("outputEdit"));
    m_type->setObjectName(QStringLiteral("typeCombo"));
    m_pattern->setObjectName(QStringLiteral("patternEdit"));
    m_preview->setObjectName(QStringLiteral("previewTree"));
    m_warnings->setObjectName(QStringLiteral("warningsLabel"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    for (const gguf::TypeTraits* type : gguf::quantizableTypes())
        m_type->addItem(QString::fromLatin1(type->name), type->id);
    m_type->setCurrentIndex(std::max(0, m_type->findText(QStringLiteral("q4_K"))));
    m_pattern->setPlaceholderText(tr("Only tensors matching this regular expression (empty: all)"));
    m_preview->setHeaderLabels({tr("Tensor"), tr("From"), tr("To"), tr("Note")});
    m_preview->setRootIsDecorated(false);
    m_preview->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);

    m_previewDebounce->setSingleShot(true);
    m_previewDebounce->setInterval(kPreviewDebounceMs);
    connect(m_previewDebounce, &QTimer::timeout, this, &ConvertDialog::updatePreview);
    connect(m_type, &QComboBox::currentIndexChanged, this, &ConvertDialog::updatePreview);
    connect(m_pattern, &QLineEdit::textChanged, m_previewDebounce, qOverload<>(&QTimer::start));
    m_progressPoll->setInterval(kProgressPollMs);
    connect(m_progressPoll, &QTimer::timeout, this, [this]() {
        const std::uint64_t total = m_total->load();
        m_progress->setValue(total ? static_cast<int>(1000.0 * static_cast<double>(m_done->load()) / static_cast<double>(total)) : 0);
    });
    connect(m_convert, &QPushButton::clicked, this, &ConvertDialog::startConversion);
    connect(m_cancel, &QPushButton::clicked, this, [this]() {
        if (isConverting())
            cancelConversion();
        else
            reject();
    });

    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, &ConvertDialog::chooseOutput);
    auto* outputRow = new QHBoxLayout;
    outputRow->addWidget(m_output, 1);
    outputRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Input:"), new QLabel(QString::fromStdString(m_input->primary().path()), this));
    form->addRow(tr("Output:"), outputRow);
    form->addRow(tr("Target type:"), m_type);
    form->addRow(tr("Tensors:"), m_pattern);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_convert);
    buttons->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_warnings);
    layout->addLayout(buttons);
    resize(760, 560);
    updatePreview();
}

void ConvertDialog::setOutputPath(const QString& path)
{
    m_output->setText(path);
}

void ConvertDialog::setTargetType(const QString& typeName)
{
    const int index = m_type->findText(typeName, Qt::MatchFixedString);
    if (index >= 0)
        m_type->setCurrentIndex(index);
}

void ConvertDialog::setTensorPattern(const QString& pattern)
{
    m_pattern->setText(pattern);
    updatePreview();
}

QString ConvertDialog::outputPath() const
{
    return m_output->text();
}

QString ConvertDialog::warningsText() const
{
    return m_warnings->text();
}

bool ConvertDialog::isConverting() const
{
    return m_job && m_job->isRunning();
}

gguf::ConversionOptions ConvertDialog::options() const
{
    gguf::ConversionOptions options;
    options.targetType = m_type->currentData().toUInt();
    options.tensorPattern = m_pattern->text().toStdString();
    return options;
}

void ConvertDialog::chooseOutput()
{
    const QFileInfo input(QString::fromStdString(m_input->primary().path()));
    const QString suggestion = input.dir().filePath(input.completeBaseName() + QLatin1Char('-') + m_type->currentText() + QStringLiteral(".gguf"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Convert To"), suggestion, tr("GGUF models (*.gguf)"));
    if (!path.isEmpty())
        m_output->setText(path);
}

// Planning reads no tensor data, so it runs on the GUI thread.
void ConvertDialog::updatePreview()
{
    m_preview->clear();
    const auto plan = gguf::planConversion(*m_input, options());
    if (!plan) {
        m_warnings->setText(tr("<b>Cannot convert:</b> %1").arg(QString::fromStdString(plan.error().toString()).toHtmlEscaped()));
        m_convert->setEnabled(false);
        return;
    }
    QList<QTreeWidgetItem*> items;
    for (const gguf::ConversionTensorPlan& tensor : plan->tensors) {
        auto* item = new QTreeWidgetItem;
        item->setText(0, QString::fromUtf8(tensor.source->name.data(), static_cast<qsizetype>(tensor.source->name.size())));
        item->setText(1, QString::fromStdString(gguf::typeName(tensor.source->typeId)));
        item->setText(2, tensor.target.quantize ? QString::fromStdString(gguf::typeName(tensor.target.typeId)) : tr("kept"));
        item->setText(3, QString::fromStdString(tensor.target.note));
        items << item;
    }
    m_preview->addTopLevelItems(items);
    QStringList lines;
    lines << tr("%n tensor(s) quantized", nullptr, static_cast<int>(plan->quantizedCount))
                 + tr(", %n kept as they are.", nullptr, static_cast<int>(plan->tensors.size() - plan->quantizedCount));
    for (const std::string& warning : plan->warnings)
        lines << QStringLiteral("⚠ ") + QString::fromStdString(warning).toHtmlEscaped();
    m_warnings->setText(lines.join(QStringLiteral("<br>")));
    m_convert->setEnabled(!isConverting());
}

void ConvertDialog::startConversion()
{
    if (isConverting())
        return;
    const QString output = outputPath();
    if (output.isEmpty()) {
        m_warnings->setText(tr("Choose an output file."));
        emit conversionFinished(false, m_warnings->text());
        return;
    }
    m_done->store(0);
    m_total->store(0);
    auto* job = new BackgroundJob(1, [input = m_input, outputFile = output.toStdString(), conversion = options(), done = m_done,
                                      total = m_total](int, const std::atomic<bool>& cancelled) mutable -> gguf::Status {
        conversion.cancel = &cancelled;
        conversion.progress = [done, total](std::uint64_t d, std::uint64_t t) {
            done->store(d);
            total->store(t);
        };
        auto result = gguf::convertModel(*input, outputFile, conversion);
        if (!result)
            return result.error();
        return gguf::Ok{};
    }, this);
    m_job = job;
    m_convert->setEnabled(false);
    m_cancel->setText(tr("Cancel"));
    m_progressPoll->start();
    connect(job, &BackgroundJob::finished, this, [this, job, output](const JobOutcome& outcome) {
        job->deleteLater();
        const bool succeeded = outcome.isDone();
        const QString message = outcome.message();
        m_progressPoll->stop();
        m_cancel->setText(tr("Close"));
        m_convert->setEnabled(true);
        m_progress->setValue(succeeded ? 1000 : 0);
        m_warnings->setText(succeeded ? tr("Wrote %1.").arg(output.toHtmlEscaped())
                                      : tr("<b>Conversion failed:</b> %1").arg(message.toHtmlEscaped()));
        emit conversionFinished(succeeded, succeeded ? QString() : message);
    });
}

void ConvertDialog::cancelConversion()
{
    if (m_job)
        m_job->cancel();
}
