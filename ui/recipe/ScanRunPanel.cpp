#include "ui/recipe/ScanRunPanel.h"

#include "ui/session/JobPoolExecutor.h"

#include "core/base/EscapedText.h"
#include "core/sensitivity/ScanComparison.h"
#include "core/sensitivity/ScanFile.h"
#include "core/types/GgmlType.h"
#include "core/write/OutputLock.h"
#include "ui/common/ExportLocation.h"
#include "ui/session/CalibrationTokens.h"
#include "ui/common/FileDialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <filesystem>

namespace {

gguf::Error runError(std::string message)
{
    return gguf::Error{std::move(message), gguf::Error::kNoOffset, {}};
}

QString duration(double seconds)
{
    const auto s = static_cast<long long>(seconds + 0.5);
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg(s % 3600 / 60);
}

QSpinBox* spin(int low, int high, int value, const QString& name, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(low, high);
    box->setValue(value);
    box->setObjectName(name);
    return box;
}

}  // namespace

ScanRunPanel::ScanRunPanel(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QGroupBox(tr("Run a scan"), parent), m_model(std::move(model))
{
    setObjectName(QStringLiteral("scanRunPanel"));
    const QString modelPath = QString::fromStdString(m_model->primary().path());
    m_text = new QLineEdit(this);
    m_text->setObjectName(QStringLiteral("scanTextFile"));
    m_text->setPlaceholderText(tr("calibration text (as llama-perplexity -f)"));
    m_output = new QLineEdit(QDir(modelFolder(modelPath, QDir::homePath())).filePath(QFileInfo(modelPath).completeBaseName() + QStringLiteral(".scan.json")), this);
    m_output->setObjectName(QStringLiteral("scanOutputFile"));
    m_tokens = spin(0, 1 << 30, 1024, QStringLiteral("scanMaxTokens"), this);
    m_tokens->setSpecialValueText(tr("all"));
    m_chunk = spin(4, 1 << 16, 128, QStringLiteral("scanChunk"), this);
    m_stride = spin(1, 1 << 20, 1, QStringLiteral("scanStride"), this);
    m_stride->setToolTip(tr("Probe every N-th block (token_embd and output always); the planner gives skipped blocks the mean of their role"));
    m_types = new QLineEdit(this);
    m_types->setObjectName(QStringLiteral("scanTypes"));
    m_types->setPlaceholderText(tr("default: q2_K … q6_K, q8_0 (and IQ types with an imatrix)"));
    m_run = new QPushButton(tr("Run Scan"), this);
    m_run->setObjectName(QStringLiteral("scanRun"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("scanCancel"));
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("scanProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("scanStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    const auto fileRow = [this](QLineEdit* edit, bool save) {
        auto* row = new QHBoxLayout;
        auto* pick = new QPushButton(tr("Choose…"), this);
        row->addWidget(edit, 1);
        row->addWidget(pick);
        connect(pick, &QPushButton::clicked, this, [this, edit, save]() {
            const QString start = edit->text().isEmpty() ? modelFolder(QString::fromStdString(m_model->primary().path()), QDir::homePath()) : edit->text();
            const QString path = save ? askSaveFileName(this, tr("Scan file"), start, tr("Scan files (*.json)"))
                                      : askOpenFileName(this, tr("Calibration text"), start, tr("Text files (*.txt);;All files (*)"));
            if (!path.isEmpty())
                edit->setText(path);
        });
        return row;
    };
    auto* form = new QFormLayout(this);
    form->addRow(tr("Text:"), fileRow(m_text, false));
    form->addRow(tr("Scan file:"), fileRow(m_output, true));
    auto* numbers = new QHBoxLayout;
    for (const auto& [label, box] : {std::pair{tr("tokens"), m_tokens}, std::pair{tr("chunk"), m_chunk}, std::pair{tr("every Nth block"), m_stride}}) {
        numbers->addWidget(new QLabel(label, this));
        numbers->addWidget(box);
    }
    numbers->addWidget(new QLabel(tr("types"), this));
    numbers->addWidget(m_types, 1);
    form->addRow(tr("Settings:"), numbers);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    form->addRow(buttons);
    form->addRow(m_status);
    connect(m_run, &QPushButton::clicked, this, [this]() { start(settings()); });
    connect(m_cancel, &QPushButton::clicked, this, &ScanRunPanel::cancel);
}

void ScanRunPanel::setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path)
{
    m_importance = std::move(matrix);
    m_importancePath = m_importance ? path : QString();
}

ScanRunSettings ScanRunPanel::settings() const
{
    ScanRunSettings s;
    s.textFile = m_text->text().trimmed();
    s.scanFile = m_output->text().trimmed();
    s.maxTokens = m_tokens->value();
    s.chunk = m_chunk->value();
    s.layerStride = m_stride->value();
    s.types = m_types->text().trimmed();
    return s;
}

QString ScanRunPanel::progressText() const
{
    return m_status->text();
}

void ScanRunPanel::cancel()
{
    m_jobs.cancel();
}

void ScanRunPanel::start(const ScanRunSettings& settings)
{
    if (m_jobs.isRunning())
        return;
    gguf::ScanOptions options;
    options.executor = &JobPoolExecutor::instance();
    for (const QString& word : settings.types.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
        const gguf::TypeTraits* type = gguf::findTypeByName(word.toStdString());
        if (!type) {
            m_status->setText(tr("'%1' is not a ggml type").arg(word));
            emit finished(false, m_status->text(), {});
            return;
        }
        options.types.push_back(type->id);
    }
    if (settings.textFile.isEmpty() || settings.scanFile.isEmpty()) {
        m_status->setText(tr("Choose a calibration text and a scan file first."));
        emit finished(false, m_status->text(), {});
        return;
    }
    options.chunkSize = settings.chunk;
    options.maxTokens = settings.maxTokens;
    options.layerStride = settings.layerStride;
    if (const auto bos = m_model->metadataUInt("tokenizer.ggml.bos_token_id"); bos && *bos <= 0x7FFFFFFF)
        options.bosToken = static_cast<std::int32_t>(*bos);
    if (m_importance) {
        options.importance = [matrix = m_importance](std::string_view name, std::size_t expert) {
            const gguf::ImportanceEntry* entry = matrix->find(name);
            return entry ? entry->quantWeights(expert) : std::vector<float>{};
        };
        options.importanceLabel = m_importancePath.toStdString();
    }
    const QString scanFile = settings.scanFile;
    BackgroundJob* job = m_jobs.run(
        [model = m_model, options, text = settings.textFile.toStdString(), out = scanFile.toStdString()](const JobControl& control) -> gguf::Status {
            // Held for the whole run: a scan from the command line (or another window) writing
            // the same file is refused at once instead of overwriting this one's figures.
            auto lock = gguf::OutputLock::acquire(out);
            if (!lock)
                return lock.error();
            auto tokens = calibrationTokens(*model, text);
            if (!tokens)
                return tokens.error();
            auto scan = gguf::SensitivityScan::prepare(*model, *tokens, options, control.cancelFlag());
            if (!scan)
                return scan.error();
            gguf::ScanRecord record = gguf::emptyRecord(**scan);
            std::error_code missing;
            if (std::filesystem::exists(out, missing)) {
                auto saved = gguf::readScanFile(out, gguf::ScanFileLimits::forModel(*model));
                if (!saved)
                    return saved.error();
                if (const std::string difference = gguf::scanDifference({*saved, "the file"}, {record, "this run"}, false); !difference.empty())
                    return runError(out + " is a scan of another model, text or settings (" + difference + "); choose another scan file");
                record.figures = saved->figures;  // resumed: only the missing probes are measured
            }
            if (gguf::Status s = gguf::writeScanFile(out, record); !s)
                return s;
            gguf::ScanRunOptions run;
            run.cancel = control.cancelFlag();
            run.checkpoint = [&out](const gguf::ScanRecord& partial) { return gguf::writeScanFile(out, partial); };
            run.progress = [&control](std::size_t done, std::size_t total, double) { control.setProgress(done, total); };
            control.setProgress(0, (*scan)->probes().size() - record.measured());
            return gguf::runScan(**scan, record, run);
        },
        [this, scanFile](gguf::Ok) { ended(JobOutcome::done(), scanFile); },
        [this, scanFile](const JobOutcome& outcome) { ended(outcome, scanFile); });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) { showProgress(done, total); });
    m_clock.start();
    m_firstMs = -1;
    m_firstDone = 0;
    m_progress->setValue(0);
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_status->setText(tr("Tokenizing the text and running the reference…"));
}

void ScanRunPanel::showProgress(quint64 done, quint64 total)
{
    if (total == 0)
        return;
    // The ETA from the probes seen since the first report (the reference's run before it is not
    // a probe's cost), so a report coalesced with the next one does not skew it.
    const qint64 now = m_clock.elapsed();
    if (m_firstMs < 0) {
        m_firstMs = now;
        m_firstDone = done;
    }
    m_progress->setValue(int(1000.0 * double(done) / double(total)));
    QString text = tr("probe %1 of %2, %3 elapsed").arg(done).arg(total).arg(duration(double(now) / 1000.0));
    if (done > m_firstDone) {
        const double perProbe = double(now - m_firstMs) / 1000.0 / double(done - m_firstDone);
        text += tr(", ETA %1").arg(duration(perProbe * double(total - done)));
    }
    m_status->setText(text);
}

void ScanRunPanel::ended(const JobOutcome& outcome, const QString& scanFile)
{
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    const bool written = QFileInfo::exists(scanFile);
    QString message;
    if (outcome.isDone()) {
        m_progress->setValue(1000);
        message = tr("Scan complete in %1: %2").arg(duration(double(m_clock.elapsed()) / 1000.0), scanFile);
    } else if (outcome.isCancelled()) {
        message = written ? tr("Scan cancelled; %1 keeps the probes measured, and Run Scan with the same settings resumes it").arg(scanFile)
                          : tr("Scan cancelled");
    } else {
        message = QString::fromStdString(gguf::escapeForDisplay(outcome.message().toStdString()));
    }
    m_status->setText(message);
    emit finished(outcome.isDone(), message, written && !outcome.isFailed() ? scanFile : QString());
}
