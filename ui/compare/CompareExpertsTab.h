#pragma once
// The compare page's Experts tab: for the selected tensor with experts (ne[2] > 1), each expert's
// figures per comparison column, the importance-weighted ones included, in a table and a grouped
// bar chart of the chosen metric. Nothing is computed here: the figures are the run's own
// (ComparisonResults::expertCells, each expert's sums on its own grid, kept by the engine when an
// importance matrix covers the tensor), shown in the panel of the Experts page's Quantization
// error tab (ExpertQuantErrorPanel.h). Without a matrix, or before the run ends, the tab says
// why it is empty.

#include "core/compare/ModelComparison.h"
#include "ui/experts/ExpertQuantErrorPanel.h"

#include <QWidget>
#include <memory>
#include <optional>

class PlotPlaceholder;

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
    void showEmpty(const QString& why);

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::shared_ptr<const gguf::ComparisonResults> m_results;
    std::optional<std::size_t> m_row;
    ExpertQuantErrorPanel* m_panel;
    PlotPlaceholder* m_placeholder = nullptr;
};
