#include "ui/recipe/RecipePage.h"

#include "core/base/EscapedText.h"
#include "ui/common/ExportLocation.h"
#include "core/base/HumanFormat.h"
#include "ui/recipe/MixPlannerView.h"
#include "core/recipe/MixSummary.h"
#include "ui/recipe/ProvenanceView.h"
#include "core/recipe/RecipeAudit.h"
#include "ui/recipe/RecipeAuditView.h"
#include "core/recipe/RecipeGrid.h"
#include "ui/recipe/RecipeGridView.h"
#include "ui/recipe/SensitivityView.h"
#include "core/recipe/RecipeConversion.h"
#include "ui/session/JobPoolExecutor.h"
#include "core/imatrix/ImatrixForModel.h"
#include "ui/common/FileDialogs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QFileDialog>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

RecipePage::RecipePage(std::shared_ptr<const gguf::Model> model, QWidget* parent) : QWidget(parent), m_model(std::move(model))
{
    auto* layout = new QVBoxLayout(this);
    m_sections = new QTabWidget(this);
    m_sections->setObjectName(QStringLiteral("recipeSections"));
    layout->addWidget(m_sections);

    auto* recipe = new QWidget(m_sections);
    auto* recipeLayout = new QVBoxLayout(recipe);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Show:"), recipe));
    m_preset = new QComboBox(recipe);
    m_preset->setObjectName(QStringLiteral("recipePreset"));
    m_preset->addItem(tr("Stored types"), QString());
    for (const gguf::QuantPreset& preset : gguf::quantPresets())
        if (!preset.alias)
            m_preset->addItem(tr("llama-quantize %1").arg(QString::fromUtf8(preset.name.data(), int(preset.name.size()))),
                              QString::fromUtf8(preset.name.data(), int(preset.name.size())));
    controls->addWidget(m_preset);
    m_imatrix = new QCheckBox(tr("with an imatrix"), recipe);
    m_imatrix->setObjectName(QStringLiteral("recipeImatrix"));
    m_imatrix->setToolTip(tr("llama-quantize chooses some types differently when an importance matrix is given, and refuses the "
                             "lowest-bit types without one"));
    controls->addWidget(m_imatrix);
    m_imatrixPick = new QPushButton(tr("Imatrix File…"), recipe);
    m_imatrixPick->setObjectName(QStringLiteral("recipeImatrixPick"));
    m_imatrixPick->setToolTip(tr("An importance matrix (llama-imatrix's .gguf or .dat): the planner weights its errors with it and "
                                 "Convert quantizes with it, as llama-quantize --imatrix"));
    controls->addWidget(m_imatrixPick);
    m_imatrixFile = new QLabel(tr("no imatrix file"), recipe);
    m_imatrixFile->setObjectName(QStringLiteral("recipeImatrixFile"));
    controls->addWidget(m_imatrixFile);
    connect(m_imatrixPick, &QPushButton::clicked, this, [this]() {
        const QString path = askOpenFileName(this, tr("Importance matrix"), modelFolder(QString::fromStdString(m_model->primary().path())),
                                            tr("Importance matrices (*.gguf *.dat);;All files (*)"));
        if (!path.isEmpty())
            loadImatrix(path);
    });
    controls->addStretch(1);
    recipeLayout->addLayout(controls);
    // What the chosen matrix leaves out of this model, or names that it does not have: it is used
    // all the same, as llama-quantize uses it.
    m_imatrixWarning = new QLabel(recipe);
    m_imatrixWarning->setObjectName(QStringLiteral("recipeImatrixWarning"));
    m_imatrixWarning->setTextFormat(Qt::PlainText);
    m_imatrixWarning->setWordWrap(true);
    m_imatrixWarning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_imatrixWarning->setVisible(false);
    recipeLayout->addWidget(m_imatrixWarning);
    auto* split = new QSplitter(Qt::Vertical, recipe);
    auto* gridBox = new QWidget(split);
    auto* gridLayout = new QVBoxLayout(gridBox);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    gridLayout->setSpacing(0);
    m_grid = new RecipeGridView(gridBox);
    gridLayout->addWidget(m_grid, 1);
    gridLayout->addWidget(m_grid->totalsView());
    auto* rulesBox = new QWidget(split);
    auto* rulesLayout = new QVBoxLayout(rulesBox);
    rulesLayout->setContentsMargins(0, 0, 0, 0);
    rulesLayout->addWidget(new QLabel(tr("--tensor-type rules over the preset (REGEX=TYPE, one per line or space separated; first match wins):"), rulesBox));
    m_rules = new QPlainTextEdit(rulesBox);
    m_rules->setObjectName(QStringLiteral("recipeRules"));
    m_rules->setPlaceholderText(QStringLiteral("attn_v=q8_0\nblk\\.0\\.ffn_down=q6_K"));
    rulesLayout->addWidget(m_rules);
    split->addWidget(gridBox);
    split->addWidget(rulesBox);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    recipeLayout->addWidget(split, 1);
    m_preview = new QLabel(recipe);
    m_preview->setObjectName(QStringLiteral("recipePreview"));
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    recipeLayout->addWidget(m_preview);
    auto* convertRow = new QHBoxLayout;
    m_convert = new QPushButton(tr("Convert with This Recipe…"), recipe);
    m_convert->setObjectName(QStringLiteral("recipeConvert"));
    m_convertProgress = new QProgressBar(recipe);
    m_convertProgress->setObjectName(QStringLiteral("recipeConvertProgress"));
    m_convertProgress->setRange(0, 1000);
    m_convertProgress->setVisible(false);
    convertRow->addWidget(m_convert);
    convertRow->addWidget(m_convertProgress, 1);
    recipeLayout->addLayout(convertRow);
    connect(m_convert, &QPushButton::clicked, this, [this]() {
        if (m_convertJobs.isRunning()) {
            m_convertJobs.cancel();
            return;
        }
        askAndConvert();
    });
    m_sections->addTab(recipe, tr("Recipe"));

    m_audit = new RecipeAuditView(m_sections);
    m_sections->addTab(m_audit, tr("Audit"));
    m_provenance = new ProvenanceView(m_model, m_sections);
    m_sections->addTab(m_provenance, tr("Provenance"));
    m_planner = new MixPlannerView(m_model, m_sections);
    m_sections->addTab(m_planner, tr("Planner"));
    m_sensitivity = new SensitivityView(m_model, m_sections);
    m_sections->addTab(m_sensitivity, tr("Sensitivity"));
    connect(m_sensitivity, &SensitivityView::scanChanged, m_planner, &MixPlannerView::setScan);
    connect(m_planner, &MixPlannerView::convertRequested, this, [this]() {
        if (!m_planner->rules())
            return;
        m_sections->setCurrentIndex(0);
        showPlan();
        askAndConvert();
    });

    // The audit reads only metadata and tensor infos, already in memory: no I/O on this thread.
    const gguf::RecipeAudit audit = gguf::auditRecipe(*m_model);
    m_audit->showAudit(audit);
    m_provenance->showMix(gguf::summarizeMix(*m_model, audit));
    m_imatrix->setChecked(audit.assumedImatrix);
    m_planner->setImatrixPresent(audit.assumedImatrix);
    if (audit.expected)
        m_planner->setBudgetText(QString::number(audit.expected->totalBytes + 65536));

    connect(m_preset, &QComboBox::currentIndexChanged, this, &RecipePage::refreshGrid);
    connect(m_imatrix, &QCheckBox::toggled, this, [this](bool on) {
        m_planner->setImportance(on ? m_importance : nullptr, m_importancePath);
        m_sensitivity->setImportance(on ? m_importance : nullptr, m_importancePath);
        m_provenance->setImportance(on ? m_importance : nullptr, m_importancePath);
        m_planner->setImatrixPresent(on);
        refreshGrid();
    });
    connect(m_rules, &QPlainTextEdit::textChanged, this, &RecipePage::refreshGrid);
    refreshGrid();
}

QString RecipePage::title() const
{
    return tr("Recipe: %1").arg(QFileInfo(QString::fromStdString(m_model->primary().path())).fileName());
}

void RecipePage::showPreset(const QString& preset)
{
    const int index = m_preset->findData(preset);
    m_preset->setCurrentIndex(index < 0 ? 0 : index);
}

void RecipePage::showPlan()
{
    showPreset(m_planner->basePresetName());
    m_rules->setPlainText(m_planner->rulesFileText());
}

bool RecipePage::convertPlan(const QString& path)
{
    if (!m_planner->rules() || m_convertJobs.isRunning())
        return false;
    showPlan();
    startConversion(path);
    return true;
}

void RecipePage::askAndConvert()
{
    const QString preset = m_preset->currentData().toString();
    const QFileInfo model(QString::fromStdString(m_model->primary().path()));
    const QString suffix = m_rules->toPlainText().trimmed().isEmpty() ? preset : preset + QStringLiteral("-mix");
    const QString proposed = QDir(modelFolder(model.filePath(), QDir::homePath())).filePath(model.completeBaseName() + QLatin1Char('-') + suffix + QStringLiteral(".gguf"));
    const QString path = askSaveFileName(this, tr("Convert to"), proposed, tr("GGUF files (*.gguf)"));
    if (!path.isEmpty())
        startConversion(path);
}

void RecipePage::startConversion(const QString& path)
{
    if (m_convertJobs.isRunning())
        return;
    gguf::RecipeOptions options;
    options.preset = gguf::findQuantPreset(m_preset->currentData().toString().toStdString());
    options.hasImatrix = m_imatrix->isChecked();  // the types shown; the writer refuses what needs real importance data
    auto rules = gguf::parseTensorTypeRules(m_rules->toPlainText().toStdString());
    if (!options.preset || !rules) {
        emit conversionFinished(false, tr("Choose a preset (and valid rules) first"));
        return;
    }
    options.rules = std::move(*rules);
    auto model = m_model;
    const std::string target = path.toStdString();
    // One job: the conversion spreads each tensor's rows over the job pool itself.
    // The loaded matrix's weights when "with an imatrix" is on; the box alone only changes the types shown.
    const auto importance = m_imatrix->isChecked() ? m_importance : nullptr;
    const std::string importancePath = m_importancePath.toStdString();
    BackgroundJob* job = m_convertJobs.run([model, options, target, importance, importancePath](const JobControl& control) -> gguf::Status {
        auto recipe = gguf::computeRecipe(gguf::readModelShape(*model), model->tensors(), options);
        if (!recipe)
            return recipe.error();
        if (!recipe->refusal.empty())
            return gguf::Error{recipe->refusal, gguf::Error::kNoOffset, {}};
        gguf::RecipeConversionOptions conversion;
        conversion.executor = &JobPoolExecutor::instance();
        if (importance) {
            conversion.importance = [importance](std::string_view name, std::size_t expert) {
                const gguf::ImportanceEntry* entry = importance->find(name);
                return entry ? entry->quantWeights(expert) : std::vector<float>{};
            };
            conversion.imatrix = gguf::imatrixProvenanceOf(*importance, importancePath);  // the path as chosen or typed
        }
        conversion.cancel = control.cancelFlag();
        conversion.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
        auto report = gguf::convertWithRecipe(*model, *recipe, target, conversion);
        if (!report)
            return report.error();
        return gguf::Ok{};
    },
        [this, path](gguf::Ok) { conversionEnded(JobOutcome::done(), path); },
        [this, path](const JobOutcome& outcome) { conversionEnded(outcome, path); });
    m_convertJobs.onWorkProgress(job, [this](quint64 done, quint64 total) {
        m_convertProgress->setValue(total ? int(1000.0 * double(done) / double(total)) : 0);
    });
    m_convert->setText(tr("Cancel Conversion"));
    m_convertProgress->setValue(0);
    m_convertProgress->setVisible(true);
}

void RecipePage::conversionEnded(const JobOutcome& outcome, const QString& path)
{
    m_convert->setText(tr("Convert with This Recipe…"));
    m_convertProgress->setVisible(false);
    const QString message = outcome.isDone() ? tr("Wrote %1").arg(path)
                          : outcome.isCancelled() ? tr("Conversion cancelled") : QString::fromStdString(gguf::escapeForDisplay(outcome.message().toStdString()));
    m_preview->setText(message);
    emit conversionFinished(outcome.isDone(), message);
}

void RecipePage::loadImatrix(const QString& path)
{
    if (m_imatrixLoading)
        return;
    m_imatrixLoading = true;
    m_imatrixPick->setEnabled(false);
    m_imatrixFile->setText(tr("reading %1…").arg(QFileInfo(path).fileName()));
    auto model = m_model;
    const std::string file = path.toStdString();
    m_imatrixJobs.run(
        [model, file](const JobControl&) { return gguf::loadImatrixForModel(file, *model); },
        [this, path](gguf::ImatrixForModel loaded) {
            m_imatrixLoading = false;
            m_imatrixPick->setEnabled(true);
            m_importance = std::move(loaded.matrix);
            m_importancePath = path;
            m_imatrixFile->setText(QString::fromStdString(gguf::escapeForDisplay(QFileInfo(path).fileName().toStdString())));
            QStringList warnings;
            for (const std::string& warning : loaded.fit.warnings())
                warnings << QStringLiteral("⚠ ") + QString::fromStdString(gguf::escapeForDisplay(warning));
            m_imatrixWarning->setText(warnings.join(QLatin1Char('\n')));
            m_imatrixWarning->setVisible(!warnings.isEmpty());
            m_planner->setImportance(m_importance, m_importancePath);
            m_sensitivity->setImportance(m_importance, m_importancePath);
            m_provenance->setImportance(m_importance, m_importancePath);
            m_imatrix->setChecked(true);
            refreshGrid();
            emit imatrixLoaded(true, m_imatrixFile->text());
        },
        [this](const JobOutcome& outcome) {
            m_imatrixLoading = false;
            m_imatrixPick->setEnabled(true);
            const QString error = QString::fromStdString(gguf::escapeForDisplay(outcome.message().toStdString()));
            m_imatrixFile->setText(m_importance ? QFileInfo(m_importancePath).fileName() : tr("no imatrix file"));
            m_preview->setText(error);
            emit imatrixLoaded(false, error);
        });
}

void RecipePage::refreshGrid()
{
    const QString presetName = m_preset->currentData().toString();
    m_rules->setEnabled(!presetName.isEmpty());
    m_convert->setEnabled(!presetName.isEmpty() || m_convertJobs.isRunning());
    if (presetName.isEmpty()) {
        const gguf::RecipeGrid grid = gguf::storedGrid(*m_model);
        m_grid->showGrid(grid);
        m_preview->setText(tr("Stored: %1 (%2 bytes) of tensor data, %3 bits per weight")
                               .arg(QString::fromStdString(gguf::formatBytes(grid.total.bytes)))
                               .arg(grid.total.bytes)
                               .arg(QString::fromStdString(gguf::formatFixed(grid.total.bitsPerWeight(), 3))));
        return;
    }
    gguf::RecipeOptions options;
    options.preset = gguf::findQuantPreset(presetName.toStdString());
    options.hasImatrix = m_imatrix->isChecked();
    auto rules = gguf::parseTensorTypeRules(m_rules->toPlainText().toStdString());
    if (!rules) {
        m_preview->setText(tr("Rules: %1").arg(QString::fromStdString(gguf::escapeForDisplay(rules.error().message))));
        return;
    }
    options.rules = std::move(*rules);
    auto recipe = gguf::computeRecipe(gguf::readModelShape(*m_model), m_model->tensors(), options);
    if (!recipe) {
        m_preview->setText(tr("llama-quantize would fail: %1").arg(QString::fromStdString(gguf::escapeForDisplay(recipe.error().message))));
        return;
    }
    m_grid->showGrid(gguf::recipeGrid(*recipe));
    QString text = tr("%1: %2 (%3 bytes) of tensor data, %4 bits per weight, %5 fallback(s), %6 tensor(s) set by rules")
                       .arg(presetName, QString::fromStdString(gguf::formatBytes(recipe->totalBytes)))
                       .arg(recipe->totalBytes)
                       .arg(QString::fromStdString(gguf::formatFixed(recipe->bitsPerWeight(), 3)))
                       .arg(recipe->fallbackCount)
                       .arg(std::count_if(recipe->tensors.begin(), recipe->tensors.end(), [](const gguf::RecipeTensor& t) { return t.manual; }));
    if (!recipe->refusal.empty())
        text += tr(" — llama-quantize would refuse: %1").arg(QString::fromStdString(gguf::escapeForDisplay(recipe->refusal)));
    m_preview->setText(text);
}
