#include "ui/imatrix/ComputeImatrixDialog.h"

#include "core/base/EscapedText.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ImatrixComputation.h"
#include "core/imatrix/ImatrixWriter.h"
#include "core/tokenize/Tokenizer.h"
#include "ui/common/FileDialogs.h"
#include "ui/session/JobPoolExecutor.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace {

// What the finished run says: its chunks, llama-imatrix's perplexity and the experts without tokens.
struct ComputedImatrix {
    QString summary;
};

QWidget* rowWithBrowse(QLineEdit* edit, QPushButton* browse, QWidget* parent)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    return row;
}

}  // namespace

ComputeImatrixDialog::ComputeImatrixDialog(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QDialog(parent), m_model(std::move(model)), m_text(new QLineEdit(this)), m_output(new QLineEdit(this)), m_chunk(new QSpinBox(this)),
      m_chunks(new QSpinBox(this)), m_processOutput(new QCheckBox(tr("Also output.weight (llama-imatrix's --process-output)"), this)),
      m_progress(new QProgressBar(this)), m_status(new QLabel(this)), m_start(new QPushButton(tr("Compute"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this))
{
    setWindowTitle(tr("Compute Importance Matrix from Text"));
    m_chunk->setRange(2, 16384);
    m_chunk->setValue(512);  // llama-imatrix's -c
    m_chunk->setSuffix(tr(" tokens"));
    m_chunks->setRange(0, 1 << 30);
    m_chunks->setSpecialValueText(tr("all"));
    auto* browseText = new QPushButton(tr("Browse…"), this);
    auto* browseOutput = new QPushButton(tr("Browse…"), this);
    connect(browseText, &QPushButton::clicked, this, &ComputeImatrixDialog::chooseText);
    connect(browseOutput, &QPushButton::clicked, this, &ComputeImatrixDialog::chooseOutput);
    auto* form = new QFormLayout;
    form->addRow(tr("Calibration text:"), rowWithBrowse(m_text, browseText, this));
    form->addRow(tr("Save as (.gguf, or .dat):"), rowWithBrowse(m_output, browseOutput, this));
    form->addRow(tr("Chunk size:"), m_chunk);
    form->addRow(tr("Chunks:"), m_chunks);
    form->addRow(QString(), m_processOutput);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_cancel->setEnabled(false);
    m_status->setWordWrap(true);
    m_status->setText(tr("As llama-imatrix -f TEXT -c N -b N: each chunk starts with BOS and runs on its own, in llama.cpp's arithmetic."));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_start, &QPushButton::clicked, this, &ComputeImatrixDialog::startComputation);
    connect(m_cancel, &QPushButton::clicked, this, &ComputeImatrixDialog::cancelComputation);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    if (m_model)
        m_output->setText(QFileInfo(QString::fromStdString(m_model->primary().path())).absolutePath() + QStringLiteral("/imatrix.gguf"));
}

void ComputeImatrixDialog::setTextPath(const QString& path) { m_text->setText(path); }
void ComputeImatrixDialog::setOutputPath(const QString& path) { m_output->setText(path); }
void ComputeImatrixDialog::setChunkSize(int tokens) { m_chunk->setValue(tokens); }
void ComputeImatrixDialog::setChunkLimit(int chunks) { m_chunks->setValue(chunks); }
void ComputeImatrixDialog::setProcessOutput(bool on) { m_processOutput->setChecked(on); }
QString ComputeImatrixDialog::statusText() const { return m_status->text(); }

void ComputeImatrixDialog::chooseText()
{
    const QString path = askOpenFileName(this, tr("Calibration text"), QFileInfo(m_text->text()).absolutePath(), tr("Text (*.txt);;All files (*)"));
    if (!path.isEmpty())
        m_text->setText(path);
}

void ComputeImatrixDialog::chooseOutput()
{
    const QString path = askSaveFileName(this, tr("Save importance matrix"), m_output->text(),
                                         tr("Importance matrix, GGUF (*.gguf);;Legacy llama-imatrix .dat (*.dat)"));
    if (!path.isEmpty())
        m_output->setText(path);
}

void ComputeImatrixDialog::startComputation()
{
    if (m_jobs.isRunning() || !m_model)
        return;
    const QString textPath = m_text->text().trimmed();
    const QString output = m_output->text().trimmed();
    if (textPath.isEmpty() || output.isEmpty()) {
        ended(false, tr("choose a calibration text and where to save the matrix"), output);
        return;
    }
    gguf::ImatrixRunOptions options;
    options.chunkSize = m_chunk->value();
    options.chunkLimit = m_chunks->value() > 0 ? m_chunks->value() : -1;
    options.processOutput = m_processOutput->isChecked();
    options.dataset = textPath.toStdString();  // llama-imatrix records the -f path as given
    m_start->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->setRange(0, 0);
    m_status->setText(tr("Tokenizing %1…").arg(QFileInfo(textPath).fileName()));
    BackgroundJob* job = m_jobs.run(
        [model = m_model, textPath, output, options](const JobControl& control) mutable -> gguf::Result<ComputedImatrix> {
            QFile file(textPath);  // read here, off the GUI thread
            if (!file.open(QIODevice::ReadOnly))
                return gguf::Error{"cannot read " + textPath.toStdString() + ": " + file.errorString().toStdString(), gguf::Error::kNoOffset, {}};
            if (file.size() > static_cast<qint64>(gguf::Tokenizer::kMaxTextBytes))
                return gguf::Error{textPath.toStdString() + " holds more than 64 MiB of text", gguf::Error::kNoOffset, {}};
            const QByteArray text = file.readAll();
            options.executor = &JobPoolExecutor::instance();
            options.cancel = control.cancelFlag();
            options.progress = [&control](std::int64_t done, std::int64_t total) {
                control.setProgress(static_cast<std::uint64_t>(done), static_cast<std::uint64_t>(total));
            };
            auto run = gguf::computeImatrixFromText(*model, std::string_view(text.constData(), static_cast<std::size_t>(text.size())), false, options);
            if (!run)
                return run.error();
            const std::string path = output.toStdString();
            auto notes = gguf::writeImatrix(run->sums, run->chunkSize, gguf::imatrixFormatForPath(path), path);
            if (!notes)
                return notes.error();
            const auto unvisited = gguf::underRoutedExperts(run->sums, 1);
            QString summary = QObject::tr("%1 chunks of %2 tokens, %3 matrices; perplexity over the chunks' second halves %4")
                                  .arg(run->chunks)
                                  .arg(run->chunkSize)
                                  .arg(run->sums.entries.size())
                                  .arg(run->perplexity, 0, 'f', 4);
            if (!unvisited.empty())
                summary += QObject::tr("; %1 expert matrices got no tokens (llama-quantize weighs them 1)").arg(unvisited.size());
            return ComputedImatrix{summary};
        },
        [this, output](ComputedImatrix computed) { ended(true, computed.summary, output); },
        [this, output](const JobOutcome& outcome) { ended(false, outcome.message(), output); });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) {
        m_progress->setRange(0, static_cast<int>(total));
        m_progress->setValue(static_cast<int>(done));
        m_status->setText(tr("Chunk %1 of %2…").arg(done).arg(total));
    });
}

void ComputeImatrixDialog::cancelComputation() { m_jobs.cancel(); }

void ComputeImatrixDialog::ended(bool succeeded, const QString& message, const QString& output)
{
    m_start->setEnabled(true);
    m_cancel->setEnabled(false);
    m_progress->setRange(0, 1);
    m_progress->setValue(succeeded ? 1 : 0);
    const QString shown = QString::fromStdString(gguf::escapeForDisplay(message.toStdString()));
    m_status->setText(succeeded ? tr("Wrote %1: %2").arg(QFileInfo(output).fileName(), shown) : tr("Not computed: %1").arg(shown));
    emit computationFinished(succeeded, message, output);
}
