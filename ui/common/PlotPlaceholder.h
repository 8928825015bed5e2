#pragma once
// A sentence over a plot that has nothing true to show yet: "Select a tensor", "Computing…",
// "Cancelled — click to compute", an error. It covers the whole plot (axes, colour bar, stale
// graphs), so empty axes or the last tensor's figures never pass for data; a click on it runs
// `retry` when one is set (after a cancel or a failure). The plot keeps its size underneath,
// growing only to the height the text needs (PlaceholderText: a button's own text would be cut).

#include <QObject>
#include <QString>
#include <functional>

class QCustomPlot;
class QPushButton;
class PlaceholderText;

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
    PlaceholderText* m_text;
    std::function<void()> m_retry;
};
