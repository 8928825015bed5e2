#pragma once
// The planner's size/error plot: the frontier as a step line, the presets as labelled discs,
// the plan as a star (and, when a scan plans, the weight-error plan beside it, and rings at the
// KLD measured for the mixes that were measured), against file size, with the budget as a
// vertical line. Preset labels are placed where they overlap no
// other label and no point (trying the sides of the point, then further out with a leader
// line), the axes leave room so no marker is cut at the edge, and each point has a readout (the
// shared hover tool tip, ui/common/PlotReadout.h).
// Data with no positive figure (a model of zeros) cannot sit on the log axis: it is drawn on
// a linear one with a warning, never an empty plot. clear() covers a stale plot with a
// sentence, so a cancelled or failed plan never passes for the old one.

#include <QWidget>
#include <optional>
#include <vector>

class PlotPlaceholder;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;

struct FrontierPoint {
    double bytes = 0.0;
    double value = 0.0;  // error or predicted KLD
    QString name;        // a preset's label; empty for frontier points
    QString tip;         // the tooltip
};

struct FrontierData {
    QString valueLabel;  // the y axis
    std::vector<FrontierPoint> frontier, presets, plan, otherPlan;
    std::vector<FrontierPoint> measured;  // mixes whose KLD was measured, at that KLD
    QString planName, otherPlanName;
    std::optional<double> budgetBytes;
};

class FrontierPlot : public QWidget {
    Q_OBJECT
public:
    explicit FrontierPlot(QWidget* parent = nullptr);

    void show(const FrontierData& points);
    // Drops what is drawn and says why over the plot ("Measuring…", "Cancelled").
    void clear(const QString& reason);

    QCustomPlot* plot() const { return m_plot; }
    const std::vector<QCPItemText*>& labels() const { return m_labels; }
    QCPItemStraightLine* budgetLine() const { return m_budget; }
    QString warningText() const;
    QString placeholderText() const;
    // The tooltip of the point nearest `position` (plot pixels) within a few pixels, or empty.
    QString toolTipAt(const QPoint& position) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void placeLabels();

    QCustomPlot* m_plot;
    PlotPlaceholder* m_placeholder;
    QLabel* m_warning;
    FrontierData m_data;
    std::vector<QCPItemText*> m_labels;
    QCPItemStraightLine* m_budget = nullptr;
    bool m_logScale = true;
    bool m_placing = false;
};
