#include "ui/shell/ConvertDialog.h"
#include "ui/shell/WindowPlacement.h"

#include "ui/session/JobPoolExecutor.h"
#include "core/quantize/Conversion.h"
#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"
#include "core/imatrix/ImatrixForModel.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/ModelShape.h"
#include "core/recipe/QuantPresets.h"
#include "core/recipe/RecipeConversion.h"
#include "core/types/GgmlType.h"
#include "ui/common/ExportLocation.h"
#include "ui/common/FileDialogs.h"

#include <QComboBox>
#include <QDir>
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
constexpr int kPresetRole = Qt::UserRole + 1;  // a preset's name; pure types have their id in Qt::UserRole
constexpr int kProgressSteps = 10000;          // a tenth of a percent: a large file moves from its first gigabyte

// A chosen importance matrix that fits the model: its weights, and what the user is told about it.
struct ChosenImportance {
    std::shared_ptr<const gguf::ImportanceWeights> weights;
    std::vector<std::string> warnings;
};

QString presetText(const gguf::QuantPreset& preset)
{
    return QString::fromUtf8(preset.name.data(), int(preset.name.size()));
}

// The input's name without a trailing type or preset label ("model-F16" -> "model"), so the
// proposal reads "model-Q4_K_M", not "model-F16-Q4_K_M".
QString baseName(const QString& completeBaseName)
{
    const qsizetype cut = std::max(completeBaseName.lastIndexOf(QLatin1Char('-')), completeBaseName.lastIndexOf(QLatin1Char('.')));
    if (cut <= 0)
        return completeBaseName;
    const std::string label = completeBaseName.mid(cut + 1).toStdString();
    return gguf::findTypeByName(label) || gguf::findQuantPreset(label) ? completeBaseName.left(cut) : completeBaseName;
}
}  // namespace

ConvertDialog::ConvertDialog(std::shared_ptr<const gguf::Model> input, QWidget* parent)
    : QDialog(parent), m_input(std::move(input)), m_output(new QLineEdit(this)), m_type(new QComboBox(this)),
      m_pattern(new QLineEdit(this)), m_imatrix(new QLineEdit(this)), m_imatrixNote(new QLabel(this)), m_preview(new QTreeWidget(this)), m_warnings(new QLabel(this)), m_written(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_convert(new QPushButton(tr("Convert"), this)), m_cancel(new QPushButton(tr("Close"), this)), m_previewDebounce(new QTimer(this))
{
    setWindowTitle(tr("Convert Model"));
    m_output->setObjectName(QStringLiteral("outputEdit"));
    m_type->setObjectName(QStringLiteral("typeCombo"));
    m_pattern->setObjectName(QStringLiteral("patternEdit"));
    m_preview->setObjectName(QStringLiteral("previewTree"));
    m_warnings->setObjectName(QStringLiteral("warningsLabel"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    for (const gguf::TypeTraits* type : gguf::quantizableTypes()) {
        m_type->addItem(QString::fromLatin1(type->name), type->id);
        if (gguf::requiresImportance(type->id))
            m_type->setItemData(m_type->count() - 1, tr("Needs an importance matrix: ggml makes %1 only with importance weights").arg(QString::fromLatin1(type->name)),
                                Qt::ToolTipRole);
    }
    m_imatrix->setObjectName(QStringLiteral("imatrixEdit"));
    m_imatrix->setPlaceholderText(tr("none (llama-imatrix output, .gguf or .dat)"));
    m_imatrix->setClearButtonEnabled(true);
    m_imatrixNote->setObjectName(QStringLiteral("imatrixNote"));
    m_imatrixNote->setTextFormat(Qt::PlainText);  // names from the file, not markup
    m_imatrixNote->setWordWrap(true);
    connect(m_imatrix, &QLineEdit::editingFinished, this, [this]() {
        if (m_imatrix->text().trimmed() != (m_importance ? QString::fromStdString(m_importance->path()) : QString()))
            setImportanceMatrixPath(m_imatrix->text().trimmed());
    });
    // Then llama-quantize's presets: its per-tensor choice (Q4_K_M keeps attn_v and ffn_down higher).
    m_type->insertSeparator(m_type->count());
    for (const gguf::QuantPreset& preset : gguf::quantPresets())
        if (!preset.alias) {
            m_type->addItem(tr("%1 (llama-quantize preset)").arg(presetText(preset)));
            m_type->setItemData(m_type->count() - 1, presetText(preset), kPresetRole);
        }
    m_type->setCurrentIndex(std::max(0, m_type->findText(QStringLiteral("q4_K"))));
    m_written->setObjectName(QStringLiteral("writtenLabel"));
    m_pattern->setPlaceholderText(tr("Only tensors matching this regular expression (empty: all)"));
    m_preview->setHeaderLabels({tr("Tensor"), tr("From"), tr("To"), tr("Note")});
    m_preview->setRootIsDecorated(false);
    m_preview->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(0);
    m_progress->setFormat(percentText(0.0));

    m_previewDebounce->setSingleShot(true);
    m_previewDebounce->setInterval(kPreviewDebounceMs);
    connect(m_previewDebounce, &QTimer::timeout, this, &ConvertDialog::updatePreview);
    connect(m_type, &QComboBox::currentIndexChanged, this, &ConvertDialog::updatePreview);
    connect(m_type, &QComboBox::currentIndexChanged, this, &ConvertDialog::proposeOutput);
    connect(m_pattern, &QLineEdit::textChanged, m_previewDebounce, qOverload<>(&QTimer::start));
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
    auto* imatrixBrowse = new QPushButton(tr("Choose…"), this);
    connect(imatrixBrowse, &QPushButton::clicked, this, &ConvertDialog::chooseImportanceMatrix);
    auto* imatrixRow = new QHBoxLayout;
    imatrixRow->addWidget(m_imatrix, 1);
    imatrixRow->addWidget(imatrixBrowse);
    auto* form = new QFormLayout;
    form->addRow(tr("Input:"), new QLabel(QString::fromStdString(m_input->primary().path()), this));
    form->addRow(tr("Output:"), outputRow);
    form->addRow(tr("Target type:"), m_type);
    form->addRow(tr("Tensors:"), m_pattern);
    form->addRow(tr("Importance matrix:"), imatrixRow);
    form->addRow(QString(), m_imatrixNote);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_convert);
    buttons->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_warnings);
    layout->addWidget(m_written);
    layout->addLayout(buttons);
    resize(760, 560);
    fitWindowIntoScreen(this);  // a small (or scaled) screen keeps the buttons on it
    proposeOutput();
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

void ConvertDialog::setTargetPreset(const QString& presetName)
{
    const int index = m_type->findData(presetName, kPresetRole, Qt::MatchFixedString);
    if (index >= 0)
        m_type->setCurrentIndex(index);
}

const gguf::QuantPreset* ConvertDialog::targetPreset() const
{
    const QString name = m_type->currentData(kPresetRole).toString();
    return name.isEmpty() ? nullptr : gguf::findQuantPreset(name.toStdString());
}

QString ConvertDialog::writtenText() const
{
    return m_written->text();
}

QString ConvertDialog::proposedOutputPath() const
{
    const QFileInfo input(QString::fromStdString(m_input->primary().path()));
    const QString target = targetPreset() ? presetText(*targetPreset()) : m_type->currentText();
    QString name = baseName(input.completeBaseName()) + QLatin1Char('-') + target + QStringLiteral(".gguf");
    if (name == input.fileName())
        name = input.completeBaseName() + QStringLiteral("-requantized.gguf");
    return QDir(modelFolder(input.filePath(), QDir::homePath())).filePath(name);
}

// A new proposal follows the target while the field holds the previous proposal (or nothing);
// a name the user typed or chose stays.
void ConvertDialog::proposeOutput()
{
    if (!m_output->text().isEmpty() && m_output->text() != m_proposedOutput)
        return;
    m_proposedOutput = proposedOutputPath();
    m_output->setText(m_proposedOutput);
}

gguf::Result<gguf::Recipe> ConvertDialog::presetRecipe() const
{
    gguf::RecipeOptions options;
    options.preset = targetPreset();
    options.hasImatrix = m_importance != nullptr;
    return gguf::computeRecipe(gguf::readModelShape(*m_input), m_input->tensors(), options);
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
    return m_convertJobs.isRunning();
}

gguf::ConversionOptions ConvertDialog::options() const
{
    gguf::ConversionOptions options;
    options.targetType = m_type->currentData().toUInt();
    options.tensorPattern = m_pattern->text().toStdString();
    options.importance = m_importance.get();  // the job holds m_importance while it converts
    return options;
}

QString ConvertDialog::importanceMatrixPath() const
{
    return m_imatrix->text().trimmed();
}

void ConvertDialog::chooseImportanceMatrix()
{
    const QFileInfo input(QString::fromStdString(m_input->primary().path()));
    const QString path = askOpenFileName(this, tr("Importance Matrix"), input.absolutePath(),
                                        tr("Importance matrices (*.gguf *.dat);;All files (*)"));
    if (!path.isEmpty())
        setImportanceMatrixPath(path);
}

void ConvertDialog::setImportanceMatrixPath(const QString& path)
{
    m_imatrix->setText(path);
    m_imatrixJobs.renew();  // another matrix was chosen: the older one's result is dropped
    m_importance.reset();
    if (path.isEmpty()) {
        m_imatrixNote->clear();
        updatePreview();
        QMetaObject::invokeMethod(this, [this] { emit importanceMatrixLoaded(true, {}); }, Qt::QueuedConnection);
        return;
    }
    // Reading the matrix is file I/O: on the job pool; Convert waits for it. It is checked against
    // the model as every user of a matrix checks it (core/imatrix/ImatrixForModel.h): refused
    // with the reason, or taken with its warnings shown under it.
    m_imatrixNote->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_convert->setEnabled(false);
    m_imatrixJobs.run(
        [path, model = m_input](const JobControl&) -> gguf::Result<ChosenImportance> {
            auto loaded = gguf::loadImatrixForModel(path.toStdString(), *model);
            if (!loaded)
                return loaded.error();
            auto weights = gguf::ImportanceWeights::of(*loaded.value().matrix);
            if (!weights)
                return weights.error();
            return ChosenImportance{std::make_shared<const gguf::ImportanceWeights>(std::move(weights.value())), loaded.value().fit.warnings()};
        },
        [this](ChosenImportance chosen) {
            m_importance = std::move(chosen.weights);
            QString note = tr("%n entr(y/ies), %1 chunk(s); covered tensors are quantized with its weights.", nullptr,
                              static_cast<int>(m_importance->entryCount()))
                               .arg(m_importance->chunkCount());
            for (const std::string& warning : chosen.warnings)
                note += QStringLiteral("\n⚠ ") + QString::fromStdString(gguf::escapeForDisplay(warning));
            m_imatrixNote->setText(note);
            updatePreview();
            emit importanceMatrixLoaded(true, QString());
        },
        [this](const JobOutcome& outcome) {
            m_imatrixNote->setText(tr("Cannot use the importance matrix: %1").arg(outcome.message()));
            updatePreview();
            emit importanceMatrixLoaded(false, outcome.message());
        });
}

QString ConvertDialog::typeRefusal() const
{
    if (targetPreset()) {
        auto recipe = presetRecipe();
        if (!recipe)
            return QString::fromStdString(recipe.error().toString());
        return recipe->refusal.empty() ? QString()
                                       : tr("llama-quantize refuses %1 here: %2").arg(m_type->currentText(), QString::fromStdString(recipe->refusal));
    }
    const std::uint32_t type = m_type->currentData().toUInt();
    if (gguf::requiresImportance(type) && !m_importance)
        return tr("%1 needs an importance matrix: ggml quantizes it only with importance weights (llama-quantize refuses it "
                  "without --imatrix). Choose one above.")
            .arg(m_type->currentText());
    return {};
}

bool ConvertDialog::canConvert() const
{
    return m_convert->isEnabled();
}

void ConvertDialog::chooseOutput()
{
    const QString suggestion = m_output->text().isEmpty() ? proposedOutputPath() : m_output->text();
    const QString path = askSaveFileName(this, tr("Convert To"), suggestion, tr("GGUF models (*.gguf)"));
    if (!path.isEmpty())
        m_output->setText(path);
}

// Planning reads no tensor data, so it runs on the GUI thread.
void ConvertDialog::updatePreview()
{
    m_preview->clear();
    if (const QString refusal = typeRefusal(); !refusal.isEmpty()) {
        m_warnings->setText(tr("<b>Cannot convert:</b> %1").arg(refusal.toHtmlEscaped()));
        m_convert->setEnabled(false);
        return;
    }
    m_pattern->setEnabled(!targetPreset());
    if (targetPreset()) {
        auto recipe = presetRecipe();  // typeRefusal() has checked it succeeds
        QList<QTreeWidgetItem*> items;
        std::size_t converted = 0;
        for (const gguf::RecipeTensor& tensor : recipe->tensors) {
            auto* item = new QTreeWidgetItem;
            item->setText(0, QString::fromUtf8(tensor.source->name.data(), static_cast<qsizetype>(tensor.source->name.size())));
            item->setText(1, QString::fromStdString(gguf::typeName(tensor.source->typeId)));
            item->setText(2, tensor.converted ? QString::fromStdString(gguf::typeName(tensor.typeId)) : tr("kept"));
            item->setText(3, QString::fromStdString(tensor.note));
            items << item;
            converted += tensor.converted;
        }
        m_preview->addTopLevelItems(items);
        m_warnings->setText(tr("%1: %n tensor(s) converted", nullptr, int(converted)).arg(m_type->currentText().toHtmlEscaped())
                            + tr(", %n kept; ", nullptr, int(recipe->tensors.size() - converted))
                            + tr("%1 of tensor data, %2 bits per weight.").arg(QString::fromStdString(gguf::formatBytes(recipe->totalBytes))).arg(QString::fromStdString(gguf::formatFixed(recipe->bitsPerWeight(), 3))));
        m_convert->setEnabled(!isConverting() && !m_imatrixJobs.isRunning());
        return;
    }
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
    m_convert->setEnabled(!isConverting() && !m_imatrixJobs.isRunning());
}

void ConvertDialog::startConversion()
{
    if (isConverting())
        return;
    const QString output = outputPath();
    if (const QString refusal = typeRefusal(); !refusal.isEmpty() || m_imatrixJobs.isRunning()) {
        m_warnings->setText(refusal.isEmpty() ? tr("The importance matrix is still being read.") : refusal);
        emit conversionFinished(false, m_warnings->text());
        return;
    }
    if (output.isEmpty()) {
        m_warnings->setText(tr("Choose an output file."));
        emit conversionFinished(false, m_warnings->text());
        return;
    }
    // The output bytes of each tensor in write order, for the bytes-written figure.
    m_writtenBytes = WrittenBytes();
    BackgroundJob* job = nullptr;
    const auto succeeded = [this, output](gguf::Ok) { conversionEnded(JobOutcome::done(), output); };
    const auto stopped = [this, output](const JobOutcome& outcome) { conversionEnded(outcome, output); };
    if (targetPreset()) {
        auto recipe = presetRecipe();
        if (!recipe) {
            emit conversionFinished(false, QString::fromStdString(recipe.error().toString()));
            return;
        }
        for (const gguf::RecipeTensor& tensor : recipe->tensors)
            m_writtenBytes.add(tensor.source->elementCount(), tensor.bytes);
        job = m_convertJobs.run(
            [input = m_input, importance = m_importance, recipe = std::move(*recipe), outputFile = output.toStdString()](const JobControl& control) -> gguf::Status {
                gguf::RecipeConversionOptions conversion;
                conversion.executor = &JobPoolExecutor::instance();
                conversion.cancel = control.cancelFlag();
                conversion.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
                if (importance) {  // as llama-quantize --imatrix: each expert's rows with its weights
                    conversion.importance = [input, importance](std::string_view name, std::size_t expert) {
                        const gguf::TensorInfo* tensor = input->findTensor(name);
                        auto row = tensor ? importance->row(name, expert, static_cast<std::uint64_t>(tensor->ne[0])) : gguf::Result<std::span<const float>>(std::span<const float>{});
                        return row ? std::vector<float>(row->begin(), row->end()) : std::vector<float>{};
                    };
                    conversion.imatrix = gguf::ImatrixProvenance{importance->path(), importance->dataset(), static_cast<std::uint32_t>(importance->entryCount()),
                                                                 importance->chunkCount()};
                }
                auto report = gguf::convertWithRecipe(*input, recipe, outputFile, conversion);
                if (!report)
                    return report.error();
                return gguf::Ok{};
            },
            succeeded, stopped);
    } else {
        const auto plan = gguf::planConversion(*m_input, options());
        if (!plan) {
            emit conversionFinished(false, QString::fromStdString(plan.error().toString()));
            return;
        }
        for (const gguf::ConversionTensorPlan& tensor : plan->tensors)
            m_writtenBytes.add(tensor.source->elementCount(), tensor.target.quantize
                                                                  ? gguf::quantizedSize(*gguf::findType(tensor.target.typeId), tensor.source->elementCount())
                                                                  : tensor.source->nbytes);
        job = m_convertJobs.run(
            [input = m_input, importance = m_importance, outputFile = output.toStdString(), conversion = options()](const JobControl& control) mutable
                -> gguf::Status {
                conversion.executor = &JobPoolExecutor::instance();
                conversion.cancel = control.cancelFlag();
                conversion.importance = importance.get();  // kept alive by this job, whatever the dialog chooses meanwhile
                conversion.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
                auto result = gguf::convertModel(*input, outputFile, conversion);
                if (!result)
                    return result.error();
                return gguf::Ok{};
            },
            succeeded, stopped);
    }
    m_convertJobs.onWorkProgress(job, [this](quint64 done, quint64 total) { showWritten(done, total); });
    updatePreview();  // the plan's lines again, not the last run's end above this run's progress
    m_clock.start();
    m_progress->setValue(0);
    m_progress->setFormat(percentText(0.0));
    m_written->setText(tr("Starting…"));
    m_convert->setEnabled(false);
    m_cancel->setText(tr("Cancel"));
}

void ConvertDialog::showWritten(quint64 done, quint64 total)
{
    const double fraction = total ? double(done) / double(total) : 0.0;
    m_progress->setValue(static_cast<int>(fraction * kProgressSteps));
    m_progress->setFormat(percentText(fraction));
    m_written->setText(conversionProgressText(m_writtenBytes.bytesAt(done), m_writtenBytes.totalBytes(), fraction, double(m_clock.elapsed()) / 1000.0));
}

void ConvertDialog::conversionEnded(const JobOutcome& outcome, const QString& output)
{
    const bool succeeded = outcome.isDone();
    const QString message = outcome.message();
    m_cancel->setText(tr("Close"));
    m_convert->setEnabled(true);
    m_progress->setValue(succeeded ? kProgressSteps : 0);
    m_progress->setFormat(percentText(succeeded ? 1.0 : 0.0));
    if (succeeded)
        m_written->setText(conversionProgressText(m_writtenBytes.totalBytes(), m_writtenBytes.totalBytes(), 1.0, double(m_clock.elapsed()) / 1000.0));
    else
        m_written->clear();
    // Cancelling is the person's choice, not a failure of the conversion.
    if (succeeded)
        m_warnings->setText(tr("Wrote %1.").arg(output.toHtmlEscaped()));
    else if (outcome.isCancelled())
        m_warnings->setText(tr("Conversion cancelled."));
    else
        m_warnings->setText(tr("<b>Conversion failed:</b> %1").arg(message.toHtmlEscaped()));
    emit conversionFinished(succeeded, succeeded ? QString() : outcome.isCancelled() ? tr("Conversion cancelled.") : message);
}

void ConvertDialog::cancelConversion()
{
    m_convertJobs.cancel();
}
