#include "ui/recipe/ProvenanceView.h"

#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"
#include "core/types/GgmlType.h"
#include "ui/common/ExportLocation.h"
#include "ui/common/FileDialogs.h"
#include "ui/session/JobPoolExecutor.h"
#include "ui/session/MixFallbackModel.h"
#include "ui/session/ModelLoader.h"
#include "ui/session/ProvenanceDifferenceModel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace {

// Text from a file (names, messages), shown without control characters.
QString shownText(std::string_view text)
{
    return QString::fromStdString(gguf::escapeForDisplay(text));
}

QString typeText(std::uint32_t type)
{
    return QString::fromStdString(gguf::typeName(type));
}

QTableView* makeTable(QAbstractItemModel* model, const QString& name, QWidget* parent)
{
    auto* table = new QTableView(parent);
    table->setObjectName(name);
    table->setModel(model);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->verticalHeader()->hide();
    return table;
}

QLabel* makeLabel(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

struct CheckValue {
    gguf::ProvenanceCheck check;
    std::string hint;
};

}  // namespace

ProvenanceView::ProvenanceView(std::shared_ptr<const gguf::Model> model, QWidget* parent) : QWidget(parent), m_model(std::move(model))
{
    auto* layout = new QVBoxLayout(this);
    m_mix = makeLabel(QStringLiteral("provenanceMix"), this);
    layout->addWidget(m_mix);
    m_fallbackModel = new MixFallbackModel(this);
    m_fallbacks = makeTable(m_fallbackModel, QStringLiteral("provenanceFallbacks"), this);
    layout->addWidget(m_fallbacks, 1);

    auto* sourceRow = new QHBoxLayout;
    sourceRow->addWidget(new QLabel(tr("Source model:"), this));
    m_source = new QLineEdit(this);
    m_source->setObjectName(QStringLiteral("provenanceSource"));
    m_source->setPlaceholderText(tr("the model llama-quantize was given (F32, F16 or BF16 .gguf)"));
    sourceRow->addWidget(m_source, 1);
    m_chooseSource = new QPushButton(tr("Choose…"), this);
    sourceRow->addWidget(m_chooseSource);
    m_checkButton = new QPushButton(tr("Check"), this);
    m_checkButton->setObjectName(QStringLiteral("provenanceCheck"));
    m_checkButton->setToolTip(tr("Is this file exactly what llama-quantize makes from the source (with the importance matrix loaded on "
                                 "the Recipe tab, when \"with an imatrix\" is on)? As recipe FILE --source SOURCE [--imatrix I]."));
    sourceRow->addWidget(m_checkButton);
    layout->addLayout(sourceRow);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setVisible(false);
    layout->addWidget(m_progress);
    m_verdict = makeLabel(QStringLiteral("provenanceVerdict"), this);
    m_verdict->setText(tr("Choose the source model and press Check."));
    layout->addWidget(m_verdict);
    m_differenceModel = new ProvenanceDifferenceModel(this);
    m_difference = makeTable(m_differenceModel, QStringLiteral("provenanceDifference"), this);
    m_difference->setVisible(false);
    layout->addWidget(m_difference);

    connect(m_chooseSource, &QPushButton::clicked, this, [this] {
        const QString path = askOpenFileName(this, tr("Source model"), modelFolder(QString::fromStdString(m_model->primary().path())),
                                             tr("GGUF models (*.gguf);;All files (*)"));
        if (!path.isEmpty())
            m_source->setText(path);
    });
    connect(m_checkButton, &QPushButton::clicked, this, [this] {
        if (m_jobs.isRunning())
            cancel();
        else
            check(m_source->text().trimmed());
    });
}

void ProvenanceView::showMix(const gguf::MixSummary& mix)
{
    QStringList lines;
    lines << tr("Mix: %1").arg(shownText(mix.label));
    lines << tr("Bits per weight: nominal %1 (%2), effective %3 (all tensor data), %4 over the quantized matrices")
                 .arg(QString::fromStdString(gguf::formatFixed(mix.nominalBitsPerWeight, 3)), typeText(mix.nominalType),
                      QString::fromStdString(gguf::formatFixed(mix.effectiveBitsPerWeight, 3)),
                      QString::fromStdString(gguf::formatFixed(mix.quantizedBitsPerWeight, 3)));
    if (!mix.fallbacksKnown)
        lines << tr("Fallbacks: unknown (no llama-quantize preset to tell which type each tensor was meant to have)");
    else if (mix.fallbacks.empty())
        lines << tr("Fallbacks: none (every row fits the blocks of the type llama-quantize chose)");
    else
        lines << tr("Fell back, their rows fitting no block of the type llama-quantize chose: %n tensor(s)", nullptr, int(mix.fallbacks.size()));
    m_mix->setText(lines.join(QLatin1Char('\n')));
    m_fallbackModel->setFallbacks(mix.fallbacks);
    m_fallbacks->setVisible(!mix.fallbacks.empty());
}

void ProvenanceView::setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path)
{
    m_importance = std::move(matrix);
    m_importancePath = m_importance ? path : QString();
}

void ProvenanceView::cancel()
{
    m_jobs.cancel();
}

void ProvenanceView::check(const QString& sourcePath)
{
    if (sourcePath.isEmpty()) {
        m_verdict->setText(tr("Choose the source model first."));
        emit checkFinished(false, m_verdict->text());
        return;
    }
    m_source->setText(sourcePath);
    prepareModelOpen(sourcePath);
    auto model = m_model;
    auto importance = m_importance;
    BackgroundJob* job = m_jobs.run(
        [model, importance, sourcePath](const JobControl& control) -> gguf::Result<CheckValue> {
            auto source = openModel(sourcePath);
            if (!source)
                return source.error();
            gguf::ProvenanceOptions options;
            options.conversion.executor = &JobPoolExecutor::instance();
            options.conversion.cancel = control.cancelFlag();
            options.conversion.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
            if (importance)  // as llama-quantize --imatrix: each expert's rows with its weights
                options.conversion.importance = [importance](std::string_view name, std::size_t expert) {
                    const gguf::ImportanceEntry* entry = importance->find(name);
                    return entry ? entry->quantWeights(expert) : std::vector<float>{};
                };
            auto check = gguf::checkProvenance(*model, **source, options);
            if (!check)
                return check.error();
            std::string hint = gguf::provenanceImatrixHint(*model, *check);
            return CheckValue{std::move(*check), std::move(hint)};
        },
        [this](CheckValue value) {
            checkEnded();
            m_result = value.check;
            showCheck(value.check, value.hint);
            emit checkFinished(true, m_verdict->text());
        },
        [this](const JobOutcome& outcome) {
            checkEnded();
            m_result.reset();
            m_difference->setVisible(false);
            m_verdict->setText(outcome.isCancelled() ? tr("Check cancelled.") : tr("Cannot check: %1").arg(shownText(outcome.message().toStdString())));
            emit checkFinished(false, m_verdict->text());
        });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) { m_progress->setValue(total ? int(1000.0 * double(done) / double(total)) : 0); });
    m_checkButton->setText(tr("Cancel"));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_verdict->setText(tr("Checking against %1…").arg(QFileInfo(sourcePath).fileName()));
}

void ProvenanceView::checkEnded()
{
    m_checkButton->setText(tr("Check"));
    m_progress->setVisible(false);
}

void ProvenanceView::showCheck(const gguf::ProvenanceCheck& check, const std::string& hint)
{
    QStringList lines;
    lines << (check.withImatrix ? tr("Source: %1 with the importance matrix %2").arg(m_source->text(), m_importancePath)
                                : tr("Source: %1 without an importance matrix").arg(m_source->text()));
    lines << tr("Preset: %1 (%2)").arg(QString::fromUtf8(check.preset->name.data(), int(check.preset->name.size())), QString::fromStdString(check.presetFrom));
    lines << shownText(gguf::provenanceVerdict(check));
    for (const std::string& line : gguf::provenanceDetails(check))
        lines << shownText(line);
    if (!hint.empty())
        lines << tr("Hint: %1").arg(shownText(hint));
    m_verdict->setText(lines.join(QLatin1Char('\n')));
    m_differenceModel->setDifference(check.firstDifference);
    m_difference->setVisible(check.firstDifference.has_value());
}
