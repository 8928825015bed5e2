#include "compare/CompareDialog.h"

#include "session/BackgroundJob.h"
#include "types/GgmlType.h"
#include "quantize/Quantize.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

CompareDialog::CompareDialog(const QString& currentModelPath, QWidget* parent)
    : QDialog(parent), m_files(new QListWidget(this)), m_types(new QListWidget(this)), m_message(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)),
      m_openFileNote(new QLabel(this))
{
    setWindowTitle(tr("Compare Quant Levels"));
    m_files->setObjectName(QStringLiteral("filesList"));
    m_types->setObjectName(QStringLiteral("simulatedTypesList"));
    for (const gguf::TypeTraits* type : gguf::simulationTargetTypes()) {
        auto* item = new QListWidgetItem(QString::fromLatin1(type->name), m_types);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    restoreFiles();
    addOpenFile(currentModelPath);

    auto* addButton = new QPushButton(tr("Add Files…"), this);
    auto* removeButton = new QPushButton(tr("Remove"), this);
    connect(addButton, &QPushButton::clicked, this, &CompareDialog::chooseFiles);
    connect(removeButton, &QPushButton::clicked, this, [this]() {
        delete m_files->currentItem();
        updateOkButton();
    });
    connect(m_files, &QListWidget::itemChanged, this, &CompareDialog::updateOkButton);
    connect(m_types, &QListWidget::itemChanged, this, &CompareDialog::updateOkButton);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &CompareDialog::openAndAccept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, [this]() {
        if (m_job)
            m_job->cancel();
        reject();
    });
    m_progress->setVisible(false);
    m_message->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("messageLabel"));

    auto* fileButtons = new QHBoxLayout;
    fileButtons->addWidget(addButton);
    fileButtons->addWidget(removeButton);
    fileButtons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Files of one model (the most precise is the reference):"), this));
    layout->addWidget(m_files, 2);
    layout->addWidget(m_openFileNote);
    layout->addLayout(fileButtons);
    layout->addWidget(new QLabel(tr("Also simulate, by quantizing the reference in memory:"), this));
    layout->addWidget(m_types, 1);
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
        if (m_types->item(i)->text().compare(typeName, Qt::CaseInsensitive) == 0)
            m_types->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
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
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Add GGUF Files"), addFilesFolder(), tr("GGUF models (*.gguf);;All files (*)"));
    for (const QString& path : paths)
        addFile(path);
}

// A comparison needs a second file or at least one simulated type.
void CompareDialog::updateOkButton()
{
    const qsizetype files = checkedFiles().size();
    const bool enough = files >= 2 || (files == 1 && !simulatedTypes().empty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(enough && !m_job);
    if (!m_job)
        m_message->setText(enough ? QString() : tr("Check two files, or one file and a type to simulate."));
}

void CompareDialog::openAndAccept()
{
    const QStringList paths = checkedFiles();
    if (m_job || paths.isEmpty())
        return;
    auto opened = std::make_shared<std::vector<std::shared_ptr<const gguf::Model>>>(static_cast<std::size_t>(paths.size()));
    auto* job = new BackgroundJob(static_cast<int>(paths.size()), [paths, opened](int chunk, const std::atomic<bool>&) -> gguf::Status {
        auto model = gguf::Model::open(paths[chunk].toStdString());
        if (!model)
            return model.error();
        (*opened)[static_cast<std::size_t>(chunk)] = model.value();
        return gguf::Ok{};
    }, this);
    m_job = job;
    m_progress->setRange(0, static_cast<int>(paths.size()));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_message->setText(tr("Opening %n file(s)…", nullptr, static_cast<int>(paths.size())));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    connect(job, &BackgroundJob::progress, m_progress, &QProgressBar::setValue);
    connect(job, &BackgroundJob::finished, this, [this, job, opened](const JobOutcome& outcome) {
        job->deleteLater();
        m_job = nullptr;
        m_progress->setVisible(false);
        if (!outcome.isDone()) {
            m_message->setText(tr("Cannot open: %1").arg(outcome.message()));
            m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
            return;
        }
        m_models = std::move(*opened);
        rememberFiles();
        accept();
    });
}
