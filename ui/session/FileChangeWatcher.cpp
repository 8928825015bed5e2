#include "session/FileChangeWatcher.h"

#include "session/JobPool.h"

#include <QFileSystemWatcher>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

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
    auto* watcher = new QFutureWatcher<ChangedShard>(this);
    connect(watcher, &QFutureWatcher<ChangedShard>::finished, this, [this, watcher]() {
        const ChangedShard changed = watcher->result();
        watcher->deleteLater();
        m_checking = false;
        if (!changed.path.isEmpty()) {
            m_reported = true;
            m_watcher->removePaths(m_watcher->files());
            emit fileChanged(changed.path, changed.reason);
        } else if (m_recheck) {
            m_recheck = false;
            checkNow();
        }
    });
    watcher->setFuture(QtConcurrent::run(jobPool(), [model = m_model]() {
        for (const auto& shard : model->shards()) {
            if (gguf::Status status = shard->mapping().checkUnchanged(); !status)
                // The message without the path: the banner names the file once, by its name.
                return ChangedShard{QString::fromStdString(shard->path()), QString::fromStdString(status.error().message)};
        }
        return ChangedShard{};
    }));
}
