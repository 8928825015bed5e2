#pragma once
// The compare page's Experts tab: for the selected tensor with experts (ne[2] > 1), each expert's
// figures per comparison column, the importance-weighted ones included, in a table and a grouped
// bar chart of the chosen metric, shown in the panel of the Experts page's Quantization error tab
// (ExpertQuantErrorPanel.h). With an importance matrix the figures are the run's own
// (ComparisonResults::expertCells, each expert's sums on its own grid); without one the tab
// computes the plain figures (RMSE and the like) of the selected tensor's experts itself, for
// every column, other files included (they were refused without a matrix).

#include "core/compare/ModelComparison.h"
#include "ui/experts/ExpertQuantErrorPanel.h"
#include "ui/session/ExpertQuantErrorJob.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <optional>

class PlotPlaceholder;
class StartWhenShown;

class CompareExpertsTab : public QWidget {
    Q_OBJECT
public:
    explicit CompareExpertsTab(QWidget* parent = nullptr);

    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison);
    void setResults(std::shared_ptr<const gguf::ComparisonResults> results);
    void setTensorRow(std::size_t row);

    ExpertQuantErrorModel* model() const { return m_panel->model(); }
    QComboBox* metricCombo() const { return m_panel->metricCombo(); }
    QTableView* table() const { return m_panel->table(); }
    QCustomPlot* plot() const { return m_panel->plot(); }
    QString messageText() const;
    // What covers the chart while it has nothing to show, empty when it shows bars.
    QString placeholderText() const;

private:
    void refresh();
    QStringList columnLabels();  // the columns' titles; sets their bar colours
    void showEmpty(const QString& why);
    void startPlainFigures(std::size_t row, std::uint64_t experts, const QString& name);
    void runPlainFigures();  // once the tab is shown
    void collectPlainFigures();

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::shared_ptr<const gguf::ComparisonResults> m_results;
    std::optional<std::size_t> m_row;
    ExpertQuantErrorPanel* m_panel;
    PlotPlaceholder* m_placeholder = nullptr;
    // Without an importance matrix: the plain figures of m_plainRow, computed here.
    JobRunner m_plainJobs{this};
    StartWhenShown* m_startWhenShown;
    std::optional<std::size_t> m_plainRow;
    std::shared_ptr<ExpertQuantErrorResults> m_plain;
};
