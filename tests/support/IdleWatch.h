#pragma once
// Whether a view stays idle when nobody touches it: the event loop runs for the window of
// Waits.h with no input while a 5 ms timer samples a "busy" predicate. What a test asserts is a
// count of starts (a finished view must start nothing on its own), never how long anything
// took; the window only bounds how long the test looks.

#include "Waits.h"

#include <QTest>
#include <QTimer>
#include <functional>

namespace testsupport {

// Runs the event loop for the window and returns how often `busy()` went from false to true.
inline int busyStartsWhileIdle(const std::function<bool()>& busy)
{
    int starts = 0;
    bool was = busy();
    QTimer sampler;
    QObject::connect(&sampler, &QTimer::timeout, [&]() {
        const bool now = busy();
        if (now && !was)
            ++starts;
        was = now;
    });
    sampler.start(5);
    QTest::qWait(kNothingHappensWindowMs);
    return starts;
}

// Runs the event loop for the window, in which what the test says must not happen would show
// (a second result signal, a fetch nobody asked for); the test checks afterwards.
inline void watchThatNothingHappens()
{
    QTest::qWait(kNothingHappensWindowMs);
}

}  // namespace testsupport
