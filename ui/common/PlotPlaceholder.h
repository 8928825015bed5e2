#pragma once
// A sentence over a plot that has nothing true to show yet: "Select a tensor", "Computing…",
// "Cancelled — click to compute", an error. It covers the whole plot (axes, colour bar, stale
// graphs), so empty axes or the last tensor's figures never pass for data; a click on it runs
// `retry` when one is set (after a cancel or a failure). The plot keeps its size underneath.

#include <QObject>
#include <QString>
#include <functional>

class QCustomPlot;
class QLabel;
class QPushButton;

// A centred, word-wrapped label filling `button`, which a button's own text is not: a long
// error on a narrow plot would be cut at both sides. Clicks pass through to the button.
QLabel* addWrappedText(QPushButton* button);

class PlotPlaceholder : public QObject {
public:
    // Object name of the button: the plot's name + "Placeholder".
    explicit PlotPlaceholder(QCustomPlot* plot);

    // Shows `text`; with `retry`, a click on it calls retry (once per click).
    void show(const QString& text, std::function<void()> retry = {});
    void hide();
    // The text shown, empty when hidden.
    QString text() const;
    QPushButton* button() const { return m_button; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QCustomPlot* m_plot;
    QPushButton* m_button;
    QLabel* m_text;
    std::function<void()> m_retry;
};
