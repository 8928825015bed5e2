// CompareDialog's file list across runs and the open model's place in it, apart from the
// dialog's layout and opening code.

#include "ui/compare/CompareDialog.h"

#include "core/compare/ComparableModels.h"
#include "ui/session/ModelLoader.h"
#include "ui/shell/OpenUrl.h"

#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QSettings>

namespace {
const char* const kFilesKey = "compareDialog/files";
const char* const kCheckedKey = "compareDialog/checkedFiles";
}  // namespace

void CompareDialog::restoreFiles()
{
    const QSettings settings;
    const QStringList checked = settings.value(kCheckedKey).toStringList();
    for (const QString& path : settings.value(kFilesKey).toStringList())
        if (isModelUrl(path) || QFileInfo(path).isFile())  // a file moved or deleted since: not offered again
            addFile(path, checked.contains(path));
}

void CompareDialog::rememberFiles() const
{
    QStringList files;
    for (int i = 0; i < m_files->count(); ++i)
        files << m_files->item(i)->text();
    QSettings settings;
    settings.setValue(kFilesKey, files);
    settings.setValue(kCheckedKey, checkedFiles());
}

QString CompareDialog::openFileNote() const
{
    return m_openFileNote->text();
}

QString CompareDialog::message() const
{
    return m_message->text();
}

QString CompareDialog::addFilesFolder() const
{
    if (!m_openFile.isEmpty())
        return QFileInfo(m_openFile).absolutePath();
    for (int i = m_files->count() - 1; i >= 0; --i)
        return QFileInfo(m_files->item(i)->text()).absolutePath();
    return {};
}

void CompareDialog::addOpenFile(const QString& path)
{
    m_openFileNote->setObjectName(QStringLiteral("openFileNote"));
    m_openFileNote->setWordWrap(true);
    m_openFileNote->setVisible(false);
    m_openFile = path;
    if (path.isEmpty())
        return;
    for (int i = m_files->count() - 1; i >= 0; --i)
        if (QFileInfo(m_files->item(i)->text()) == QFileInfo(path))
            delete m_files->takeItem(i);
    const QStringList others = checkedFiles();
    auto* item = new QListWidgetItem(path);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);  // the model in view is what the person wants compared
    m_files->insertItem(0, item);
    updateOkButton();
    if (others.isEmpty()) {
        QMetaObject::invokeMethod(this, [this] { emit openFileChecked(true); }, Qt::QueuedConnection);
        return;
    }

    // Reading the other headers is file I/O: it runs on the job pool; the earlier run's files
    // are unchecked if they turn out to be another model's.
    m_openFileNote->setText(tr("Checking whether %1 fits the other files…").arg(QFileInfo(path).fileName()));
    m_openFileNote->setVisible(true);
    prepareModelOpen(path);
    for (const QString& other : others)
        prepareModelOpen(other);
    // The work answers why the open model does not fit (empty: it fits).
    m_fitJobs.run(
        [path, others](const JobControl& job) -> gguf::Result<QString> {
            auto candidate = openModel(path);
            if (!candidate)
                return candidate.error();
            for (const QString& other : others) {
                if (job.isCancelled())
                    return QString();
                auto reference = openModel(other);
                if (!reference)
                    return QObject::tr("%1 cannot be opened: %2").arg(QFileInfo(other).fileName(), QString::fromStdString(reference.error().toString()));
                const std::string reason = gguf::whyNotComparable(*candidate.value(), *reference.value());
                if (!reason.empty())
                    return QObject::tr("%1 compared with %2").arg(QString::fromStdString(reason), QFileInfo(other).fileName());
            }
            return QString();
        },
        [this](const QString& why) { showFitResult(why); }, [this](const JobOutcome& outcome) { showFitResult(outcome.message()); });
}

void CompareDialog::showFitResult(const QString& why)
{
    QListWidgetItem* item = m_files->count() > 0 && m_files->item(0)->text() == m_openFile ? m_files->item(0) : nullptr;
    if (!item)
        return;  // removed meanwhile
    if (why.isEmpty()) {
        m_openFileNote->setVisible(false);
        m_openFileNote->clear();
        emit openFileChecked(true);
        return;
    }
    // A comparison of files of two models pairs few tensors: the open model wins, the earlier
    // run's files of another model are unchecked (still listed, for a comparison of their own).
    QStringList names;
    m_uncheckedForOpenFile.clear();
    for (int i = 1; i < m_files->count(); ++i) {
        QListWidgetItem* other = m_files->item(i);
        if (other->checkState() != Qt::Checked)
            continue;
        other->setCheckState(Qt::Unchecked);
        m_uncheckedForOpenFile << other->text();
        names << QFileInfo(other->text()).fileName();
    }
    const QString note = tr("Unchecked %1 from an earlier comparison: not the model %2 is (%3).")
                             .arg(names.join(QStringLiteral(", ")), QFileInfo(m_openFile).fileName(), why);
    m_openFileNote->setText(note);
    m_openFileNote->setVisible(true);
    updateOkButton();
    emit openFileChecked(false);
}
