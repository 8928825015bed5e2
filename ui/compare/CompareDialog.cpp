#include "ui/compare/CompareDialog.h"

#include "ui/shell/OpenUrl.h"

#include "ui/session/ModelLoader.h"
#include "core/types/GgmlType.h"
#include "core/quantize/Quantize.h"
#include "core/compare/ComparableModels.h"
#include "core/compare/ModelComparison.h"
#include "core/imatrix/ImatrixForModel.h"
#include "ui/common/FileDialogs.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

namespace {
// Every block type the core quantizes, the ones that need an importance matrix included, in the
// order simulationTargetTypes() uses: super-block types first, then by bits per weight.
std::vector<const gguf::TypeTraits*> offeredSimulationTypes()
{
    std::vector<const gguf::TypeTraits*> types;
    for (const gguf::TypeTraits* type : gguf::quantizableTypes())
        if (type->kind == gguf::TypeKind::Quantized)
            types.push_back(type);
    std::stable_sort(types.begin(), types.end(), [](const gguf::TypeTraits* a, const gguf::TypeTraits* b) {
        if (a->blockSize != b->blockSize)
            return a->blockSize > b->blockSize;
        return a->bitsPerWeight() < b->bitsPerWeight();
    });
    return types;
}
// Files of two models pair few tensors or none (a table of "missing" rows): the dialog refuses
// them by the rule that decides whether the open model is checked (same architecture, same
// tensor names). Empty when every file fits the first.
QString whyNotOneModel(const std::vector<std::shared_ptr<const gguf::Model>>& models, const QStringList& paths)
{
    for (std::size_t i = 1; i < models.size(); ++i)
        if (const std::string reason = gguf::whyNotComparable(*models[i], *models[0]); !reason.empty())
            return CompareDialog::tr("%1 is not the model %2 is: %3. Check files of one model only.")
                .arg(QFileInfo(paths[static_cast<qsizetype>(i)]).fileName(), QFileInfo(paths[0]).fileName(), QString::fromStdString(reason));
    return {};
}
}  // namespace

CompareDialog::CompareDialog(const QString& currentModelPath, QWidget* parent)
    : QDialog(parent), m_files(new QListWidget(this)), m_types(new QListWidget(this)), m_message(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)),
      m_openFileNote(new QLabel(this)), m_imatrix(new QLineEdit(this))
{
    setWindowTitle(tr("Compare Quant Levels"));
    m_files->setObjectName(QStringLiteral("filesList"));
    m_types->setObjectName(QStringLiteral("simulatedTypesList"));
    for (const gguf::TypeTraits* type : offeredSimulationTypes()) {
        auto* item = new QListWidgetItem(QString::fromLatin1(type->name), m_types);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    restoreFiles();
    addOpenFile(currentModelPath);
    m_imatrix->setObjectName(QStringLiteral("imatrixEdit"));
    m_imatrix->setPlaceholderText(tr("none: plain quantization, unweighted figures"));
    m_imatrix->setClearButtonEnabled(true);
    connect(m_imatrix, &QLineEdit::textChanged, this, &CompareDialog::updateTypeAvailability);
    auto* imatrixButton = new QPushButton(tr("Choose…"), this);
    connect(imatrixButton, &QPushButton::clicked, this, [this]() {
        const QString path = askOpenFileName(this, tr("Importance Matrix"), addFilesFolder(),
                                            tr("Importance matrices (*.gguf *.dat);;All files (*)"));
        if (!path.isEmpty())
            m_imatrix->setText(path);
    });
    updateTypeAvailability();

    auto* addButton = new QPushButton(tr("Add Files…"), this);
    auto* addUrlButton = new QPushButton(tr("Add URL…"), this);
    addUrlButton->setObjectName(QStringLiteral("addUrlButton"));
    auto* removeButton = new QPushButton(tr("Remove"), this);
    connect(addButton, &QPushButton::clicked, this, &CompareDialog::chooseFiles);
    connect(addUrlButton, &QPushButton::clicked, this, &CompareDialog::chooseUrl);
    connect(removeButton, &QPushButton::clicked, this, [this]() {
        delete m_files->currentItem();
        updateOkButton();
    });
    connect(m_files, &QListWidget::itemChanged, this, &CompareDialog::updateOkButton);
    connect(m_types, &QListWidget::itemChanged, this, &CompareDialog::updateOkButton);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &CompareDialog::openAndAccept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, [this]() {
        m_openJobs.cancel();
        reject();
    });
    m_progress->setVisible(false);
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);  // file names and architectures come from the files
    m_message->setObjectName(QStringLiteral("messageLabel"));

    auto* fileButtons = new QHBoxLayout;
    fileButtons->addWidget(addButton);
    fileButtons->addWidget(addUrlButton);
    fileButtons->addWidget(removeButton);
    fileButtons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Files of one model (the most precise is the reference):"), this));
    layout->addWidget(m_files, 2);
    layout->addWidget(m_openFileNote);
    layout->addLayout(fileButtons);
    layout->addWidget(new QLabel(tr("Also simulate, by quantizing the reference in memory:"), this));
    layout->addWidget(m_types, 1);
    auto* imatrixRow = new QHBoxLayout;
    imatrixRow->addWidget(new QLabel(tr("Importance matrix (optional):"), this));
    imatrixRow->addWidget(m_imatrix, 1);
    imatrixRow->addWidget(imatrixButton);
    layout->addLayout(imatrixRow);
    layout->addWidget(m_message);
    layout->addWidget(m_progress);
    layout->addWidget(m_buttons);
    updateOkButton();
}

void CompareDialog::addFile(const QString& path, bool checked)
{
    auto* item = new QListWidgetItem(path, m_files);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    updateOkButton();
}

void CompareDialog::setSimulatedTypeChecked(const QString& typeName, bool checked)
{
    for (int i = 0; i < m_types->count(); ++i)
        if (m_types->item(i)->text().compare(typeName, Qt::CaseInsensitive) == 0 && (m_types->item(i)->flags() & Qt::ItemIsEnabled))
            m_types->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

void CompareDialog::setImportanceMatrixPath(const QString& path)
{
    m_imatrix->setText(path);
}

QString CompareDialog::importanceMatrixPath() const
{
    return m_imatrix->text().trimmed();
}

QString CompareDialog::typeUnavailableReason(const QString& typeName) const
{
    const gguf::TypeTraits* type = gguf::findTypeByName(typeName.toStdString());
    if (type && gguf::requiresImportance(type->id) && importanceMatrixPath().isEmpty())
        return tr("%1 needs an importance matrix: ggml quantizes it only with importance weights "
                  "(llama-quantize refuses it without --imatrix). Choose one below.")
            .arg(QString::fromLatin1(type->name));
    return {};
}

// Types ggml makes only with importance weights can be checked only while a matrix is chosen.
void CompareDialog::updateTypeAvailability()
{
    const QSignalBlocker blocker(m_types);
    for (int i = 0; i < m_types->count(); ++i) {
        QListWidgetItem* item = m_types->item(i);
        const QString why = typeUnavailableReason(item->text());
        item->setToolTip(why);
        if (why.isEmpty()) {
            item->setFlags(item->flags() | Qt::ItemIsEnabled);
        } else {
            item->setCheckState(Qt::Unchecked);
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
        }
    }
    updateOkButton();
}

QStringList CompareDialog::checkedFiles() const
{
    QStringList paths;
    for (int i = 0; i < m_files->count(); ++i)
        if (m_files->item(i)->checkState() == Qt::Checked)
            paths << m_files->item(i)->text();
    return paths;
}

std::vector<std::uint32_t> CompareDialog::simulatedTypes() const
{
    std::vector<std::uint32_t> types;
    for (int i = 0; i < m_types->count(); ++i)
        if (m_types->item(i)->checkState() == Qt::Checked)
            if (const gguf::TypeTraits* type = gguf::findTypeByName(m_types->item(i)->text().toStdString()))
                types.push_back(type->id);
    return types;
}

void CompareDialog::chooseFiles()
{
    const QStringList paths = askOpenFileNames(this, tr("Add GGUF Files"), addFilesFolder(), tr("GGUF models (*.gguf);;All files (*)"));
    for (const QString& path : paths)
        addFile(path);
}

void CompareDialog::chooseUrl()
{
    const QString url = askForModelUrl(this);
    if (!url.isEmpty())
        addFile(url);
}

void CompareDialog::offerOpenModels(const QStringList& paths)
{
    for (const QString& path : paths) {
        bool listed = false;
        for (int i = 0; i < m_files->count() && !listed; ++i)
            listed = m_files->item(i)->text() == path;
        if (!listed)
            addFile(path, false);
    }
}

// A comparison needs a second file or at least one simulated type.
void CompareDialog::updateOkButton()
{
    const qsizetype files = checkedFiles().size();
    const bool enough = files >= 2 || (files == 1 && !simulatedTypes().empty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(enough && !m_openJobs.isRunning());
    if (!m_openJobs.isRunning())
        m_message->setText(enough ? QString() : tr("Check two files, or one file and a type to simulate."));
    // The note says why the earlier files were unchecked: once the person checks one of them
    // again, or the open model leaves the comparison, it is stale.
    if (!m_openFileNote->text().isEmpty() && !m_fitJobs.isRunning()) {
        QListWidgetItem* item = m_files->count() > 0 && m_files->item(0)->text() == m_openFile ? m_files->item(0) : nullptr;
        bool stale = !item || item->checkState() != Qt::Checked;
        for (int i = 1; i < m_files->count() && !stale; ++i)
            stale = m_files->item(i)->checkState() == Qt::Checked && m_uncheckedForOpenFile.contains(m_files->item(i)->text());
        if (stale) {
            m_openFileNote->clear();
            m_openFileNote->setVisible(false);
        }
    }
}

void CompareDialog::openAndAccept()
{
    const QStringList paths = checkedFiles();
    if (m_openJobs.isRunning() || paths.isEmpty())
        return;
    const QString imatrixPath = importanceMatrixPath();
    // One chunk per model, through the same loader as the window (so a URL opens here too).
    // The importance matrix is read after them: it must fit the reference, which only the
    // opened models tell.
    for (const QString& path : paths)
        prepareModelOpen(path);
    BackgroundJob* job = m_openJobs.runChunks(
        static_cast<int>(paths.size()),
        [paths](int chunk, const JobControl&) -> gguf::Result<std::shared_ptr<const gguf::Model>> {
            auto model = openModel(paths[chunk]);
            if (!model)
                return model.error();
            return std::shared_ptr<const gguf::Model>(std::move(model.value()));
        },
        [this, paths, imatrixPath](std::vector<std::shared_ptr<const gguf::Model>> opened) {
            m_models = std::move(opened);
            m_importance.reset();
            // The headers are parsed: comparing their architectures and tensor names reads nothing more.
            if (const QString why = whyNotOneModel(m_models, paths); !why.isEmpty()) {
                refuse(tr("Cannot compare: %1").arg(why));
                return;
            }
            if (imatrixPath.isEmpty()) {
                finishAccept();
                return;
            }
            loadImportanceMatrix(imatrixPath);
        },
        [this](const JobOutcome& outcome) { refuse(tr("Cannot open: %1").arg(outcome.message())); });
    m_progress->setRange(0, static_cast<int>(paths.size()));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_message->setText(tr("Opening %n file(s)…", nullptr, static_cast<int>(paths.size())));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    connect(job, &BackgroundJob::progress, m_progress, &QProgressBar::setValue);
}

// Refused as `compare --imatrix` refuses it (fitImatrixToModel against the comparison's
// reference): weighted figures from a matrix that does not fit are no figures.
void CompareDialog::loadImportanceMatrix(const QString& path)
{
    m_message->setText(tr("Reading the importance matrix…"));
    m_openJobs.run(
        [path, models = m_models](const JobControl&) -> gguf::Result<std::shared_ptr<gguf::ImportanceMatrix>> {
            gguf::ComparisonOptions probeOptions;
            if (models.size() < 2)
                probeOptions.simulatedTypes.push_back(gguf::typeIdValue(gguf::GgmlTypeId::Q8_0));
            auto probe = gguf::ModelComparison::create(models, probeOptions);
            if (!probe)
                return probe.error();
            auto loaded = gguf::ImportanceMatrix::load(path.toStdString());
            if (!loaded)
                return gguf::Error{"cannot read the importance matrix: " + loaded.error().toString(), gguf::Error::kNoOffset, {}};
            auto matrix = std::make_shared<gguf::ImportanceMatrix>(std::move(loaded.value()));
            if (auto fits = gguf::fitImatrixToModel(*matrix, probe->reference()); !fits)
                return fits.error();
            return matrix;
        },
        [this](std::shared_ptr<gguf::ImportanceMatrix> matrix) {
            m_importance = std::move(matrix);
            finishAccept();
        },
        [this](const JobOutcome& outcome) { refuse(tr("Cannot use the importance matrix: %1").arg(outcome.message())); });
}

void CompareDialog::finishAccept()
{
    m_progress->setVisible(false);
    rememberFiles();
    accept();
}

void CompareDialog::refuse(const QString& why)
{
    m_progress->setVisible(false);
    m_models.clear();
    m_importance.reset();
    m_message->setText(why);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
}
