#pragma once
// A tab comparing quant levels of one model. Takes the opened models (the reference is the most
// precise, as in the CLI's --auto-reference) and the types to simulate in memory; pairing the
// tensors is cheap and happens in the constructor, model-level problems show at the top, and
// every computable cell is then computed on the job pool with progress and cancel. Below: the
// whole-model table (filter, metric, CSV/JSON export) with the totals of all tensors and of each
// tensor kind under it, columns named by file type (ComparisonColumnTitle), the per-layer chart and, for the selected
// tensor, its error heatmap, histogram and per-block scatter, its error per input column and,
// for a tensor with experts (with an importance matrix), each expert's figures.

#include "core/compare/ModelComparison.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/common/SharedColumnsTableView.h"

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;
class QTimer;
class ComparisonRun;
class ComparisonTableModel;
class ComparisonTotalsModel;
class JobProgressBar;
class LayerErrorChart;
class TensorErrorView;
class ColumnErrorView;
class ColumnErrorTab;
class CompareExpertsTab;

class ComparePage : public QWidget {
    Q_OBJECT
public:
    // `importance` (may be null): bound to the reference (fitImatrixToModel), it weighs the figures
    // (the two importance metrics join the metric lists) and the simulated columns quantize with
    // it as llama-quantize --imatrix does; its warnings and problems show at the top.
    ComparePage(std::vector<std::shared_ptr<const gguf::Model>> models, std::vector<std::uint32_t> simulatedTypes,
                QWidget* parent = nullptr, std::shared_ptr<gguf::ImportanceMatrix> importance = nullptr);

    // Null when the comparison could not be created (the page then shows why).
    std::shared_ptr<const gguf::ModelComparison> comparison() const { return m_comparison; }
    std::shared_ptr<const gguf::ComparisonResults> results() const { return m_results; }
    bool isComputing() const;
    void cancel();
    QString title() const;

    ComparisonTableModel* tableModel() const { return m_model; }
    QSortFilterProxyModel* proxyModel() const { return m_proxy; }
    QTableView* tableView() const { return m_table; }
    // "all tensors" and one row per tensor kind, under the tensor table (never sorted or filtered away).
    ComparisonTotalsModel* totalsModel() const { return m_totalsModel; }
    QTableView* totalsView() const { return m_totals; }
    LayerErrorChart* layerChart() const { return m_chart; }
    TensorErrorView* tensorView() const { return m_tensorView; }
    // The Columns tab: the selected tensor's error per input column next to its importance, for
    // the picked column (and expert); columnErrorView() is its plot.
    ColumnErrorTab* columnErrorTab() const { return m_columnTab; }
    ColumnErrorView* columnErrorView() const;
    // The Experts tab: the selected tensor's figures per expert (with an importance matrix).
    CompareExpertsTab* expertsTab() const { return m_expertsTab; }
    QComboBox* metricCombo() const { return m_metric; }

    // Each returns an empty string on success, else what went wrong.
    QString exportCsv(const QString& path) const;
    QString exportJson(const QString& path) const;

signals:
    // Once, when every cell is computed, or the run failed or was cancelled (`error` says which).
    void comparisonFinished(bool succeeded, const QString& error);
    // After an export from the Export… button, for the status bar.
    void exportFinished(bool succeeded, const QString& message);

private:
    void buildTableTab(QWidget* tab);
    void applyFilter();
    void showResults(std::shared_ptr<const gguf::ComparisonResults> results);
    void showCells(std::shared_ptr<const gguf::ComparisonResults> results);  // finished or not
    static std::size_t computedCells(const gguf::ComparisonResults& results);
    void chooseExport();
    void showSelectedTensor();

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::shared_ptr<const gguf::ComparisonResults> m_results;
    QLabel* m_problems;
    QLabel* m_status;
    JobProgressBar* m_progress;
    QTabWidget* m_tabs;
    QLineEdit* m_filter = nullptr;
    QTimer* m_filterDebounce = nullptr;
    QComboBox* m_metric = nullptr;
    SharedColumnsTableView* m_table = nullptr;
    QTableView* m_totals = nullptr;
    ComparisonTableModel* m_model;
    ComparisonTotalsModel* m_totalsModel;
    QSortFilterProxyModel* m_proxy;
    LayerErrorChart* m_chart;
    TensorErrorView* m_tensorView;
    ColumnErrorTab* m_columnTab;
    CompareExpertsTab* m_expertsTab;
    ComparisonRun* m_run = nullptr;
};
