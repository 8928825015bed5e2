#pragma once
// Starts a view's expensive work only once the view is on screen: a hidden tab of the experts
// page must not read every expert of a layer for nothing. The view says when work is wanted
// (request); the work starts at once if the view is visible, otherwise at its next show.

#include <QObject>
#include <functional>

class QWidget;

class StartWhenShown : public QObject {
public:
    // `start` runs on the GUI thread, at most once per request.
    StartWhenShown(QWidget* view, std::function<void()> start);

    // Work is wanted for what the view now holds.
    void request();
    // Work is wanted, but not before the view is shown again (after a cancel: showing the view
    // again resumes rather than restarting under the Cancel button).
    void requestOnNextShow() { m_pending = true; }
    // No work is wanted (nothing to compute).
    void drop() { m_pending = false; }
    bool isPending() const { return m_pending; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void startIfShown();

    QWidget* m_view;
    std::function<void()> m_start;
    bool m_pending = false;
};
