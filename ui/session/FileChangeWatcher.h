#pragma once
// Tells a model page when one of its files changes on disk while open (an interrupted download
// rewritten in place, a `cp` over it, a delete). inotify says "something happened"; whether the
// file is really no longer the one mapped is asked of MappedFile::checkUnchanged() on the job
// pool, because even a stat() may block on a network file system.

#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <memory>

class QFileSystemWatcher;

class FileChangeWatcher : public QObject {
    Q_OBJECT
public:
    explicit FileChangeWatcher(std::shared_ptr<const gguf::Model> model, QObject* parent = nullptr);

    // Re-checks every shard now (also done on every file-system notification).
    void checkNow();

signals:
    // Emitted once, for the first shard found changed; `reason` is the core's message.
    void fileChanged(const QString& path, const QString& reason);

private:
    std::shared_ptr<const gguf::Model> m_model;
    QFileSystemWatcher* m_watcher;
    bool m_checking = false;
    bool m_recheck = false;
    bool m_reported = false;
    JobRunner m_checks{this};
};
