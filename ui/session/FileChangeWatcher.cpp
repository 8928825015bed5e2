#include "ui/session/FileChangeWatcher.h"


#include <QFileSystemWatcher>
#include <QPointer>

namespace {
struct ChangedShard {
    QString path;  // empty while every shard is unchanged
    QString reason;
};
}  // namespace

FileChangeWatcher::FileChangeWatcher(std::shared_ptr<const gguf::Model> model, QObject* parent)
    : QObject(parent), m_model(std::move(model)), m_watcher(new QFileSystemWatcher(this))
{
    for (const auto& shard : m_model->shards())
        m_watcher->addPath(QString::fromStdString(shard->path()));
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &FileChangeWatcher::checkNow);
}

void FileChangeWatcher::checkNow()
{
    if (m_reported)
        return;
    if (m_checking) {
        // A burst of notifications (a long write) collapses into one more check afterwards.
        m_recheck = true;
        return;
    }
    m_checking = true;
    m_checks.run(
        [model = m_model](const JobControl&) -> gguf::Result<ChangedShard> {
            for (const auto& shard : model->shards()) {
                if (gguf::Status status = shard->mapping().checkUnchanged(); !status)
                    // The message without the path: the banner names the file once, by its name.
                    return ChangedShard{QString::fromStdString(shard->path()), QString::fromStdString(status.error().message)};
            }
            return ChangedShard{};
        },
        [this](const ChangedShard& changed) {
            m_checking = false;
            if (!changed.path.isEmpty()) {
                m_reported = true;
                m_watcher->removePaths(m_watcher->files());
                emit fileChanged(changed.path, changed.reason);
            } else if (m_recheck) {
                m_recheck = false;
                checkNow();
            }
        },
        [this](const JobOutcome&) { m_checking = false; });
}
