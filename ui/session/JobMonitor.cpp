#include "ui/session/JobMonitor.h"

JobMonitor& JobMonitor::instance()
{
    static JobMonitor monitor;
    return monitor;
}

void JobMonitor::jobStarted()
{
    emit runningChanged(++m_running);
}

void JobMonitor::jobFinished()
{
    emit runningChanged(--m_running);
}
