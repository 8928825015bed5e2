#include "ui/session/JobPool.h"

#include "core/base/RowRanges.h"

#include <QCoreApplication>
#include <QThreadPool>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

QThreadPool* jobPool()
{
    // Owned by the application object, whose destruction waits for the (by then cancelled)
    // chunks, so no worker outlives the data it reads.
    static QThreadPool* pool = [] {
        auto* created = new QThreadPool(QCoreApplication::instance());
        created->setMaxThreadCount(static_cast<int>(gguf::machineThreadCount()));  // GGUFX_THREADS, or every core
        created->setObjectName(QStringLiteral("gguf-jobs"));
        return created;
    }();
    return pool;
}

void yieldToGuiThread()
{
    thread_local bool lowered = false;
    if (lowered)
        return;
    lowered = true;
    constexpr int kBackgroundNice = 10;
    // On Linux a thread id is a valid PRIO_PROCESS target and nice is per thread; failure only
    // means jobs compete with the GUI as equals.
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), kBackgroundNice);
}

namespace {
thread_local JobPriority t_currentPriority = JobPriority::Normal;
}

JobPriority currentJobPriority()
{
    return t_currentPriority;
}

void setCurrentJobPriority(JobPriority priority)
{
    t_currentPriority = priority;
}
