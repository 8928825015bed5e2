#pragma once
// How much work the GUI thread does, measured in its own CPU time: unlike wall time, CPU time
// does not grow when a loaded machine gives the thread no core, or when it sleeps in the event
// loop, so a handler that blocks the loop shows up and the machine's load does not.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <ctime>

namespace testsupport {

inline qint64 threadCpuMs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

// Records, between consecutive 5 ms timer ticks, the most GUI-thread CPU time spent (what an
// assertion may use) and the longest wall-clock gap (reported only: it includes the load).
class StallMeter {
public:
    StallMeter()
    {
        m_clock.start();
        m_lastCpuMs = threadCpuMs();
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            m_longestWallMs = std::max(m_longestWallMs, m_clock.restart());
            const qint64 cpu = threadCpuMs();
            m_longestCpuMs = std::max(m_longestCpuMs, cpu - m_lastCpuMs);
            m_lastCpuMs = cpu;
        });
        m_timer.start(5);
    }
    void stop() { m_timer.stop(); }
    qint64 longestWallMs() const { return m_longestWallMs; }
    qint64 longestCpuMs() const { return m_longestCpuMs; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastCpuMs = 0;
    qint64 m_longestWallMs = 0;
    qint64 m_longestCpuMs = 0;
};

}  // namespace testsupport
