#include "JobPool.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

QThreadPool* jobPool()
{
    // Owned by the application object, whose destruction waits for the (by then cancelled)
    // chunks, so no worker outlives the data it reads.
    static QThreadPool* pool = [] {
        auto* created = new QThreadPool(QCoreApplication::instance());
        created->setMaxThreadCount(QThread::idealThreadCount());
        created->setObjectName(QStringLiteral("gguf-jobs"));
        return created;
    }();
    return pool;
}
