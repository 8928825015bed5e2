#pragma once
// Counts the background jobs running in the whole application, for the status bar.

#include <QObject>

class JobMonitor : public QObject {
    Q_OBJECT
public:
    static JobMonitor& instance();
    int running() const { return m_running; }
    void jobStarted();
    void jobFinished();

signals:
    void runningChanged(int running);

private:
    JobMonitor() = default;
    int m_running = 0;
};
