#pragma once
// One tensor of a comparison in detail: the error heatmap for a chosen column (and, for an expert
// tensor, a chosen expert or all of them with their boundaries marked), the signed error
// histograms of every column overlaid on shared bins, and per-block RMS error against the
// block's scale for the chosen column (simulated columns are quantized in memory for it).
// Everything is computed on the job pool; a newer tensor or column makes older results stale.

#include "core/compare/ErrorDistribution.h"
#include "core/compare/ModelComparison.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QSpinBox;
class BackgroundJob;
class ErrorHeatmapView;
class JobProgressBar;
class PlotPlaceholder;

class TensorErrorView : public QWidget {
    Q_OBJECT
public:
    TensorErrorView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison);
    // The histogram's shared range comes from the computed maximum errors.
    void setResults(std::shared_ptr<const gguf::ComparisonResults> results);
    void setTensorRow(std::size_t row);
    void setColumn(int column);
    // For a 3-D expert tensor: the expert the heatmap shows, -1 for all of them one under the
    // other with their boundaries marked. Ignored for other tensors.
    void setExpert(int expert);
    QSpinBox* expertSpin() const { return m_expert; }

    ErrorHeatmapView* heatmap() const { return m_heatmap; }
    QCustomPlot* histogramPlot() const { return m_histogram; }
    QCustomPlot* scatterPlot() const { return m_scatter; }
    // What covers each plot while it has nothing to show ("Select a tensor…", "Cancelled…"); empty
    // when the plot is shown.
    QString histogramPlaceholderText() const;
    QString scatterPlaceholderText() const;

signals:
    void histogramReady();
    void scatterReady();

private:
    void refresh();
    void refreshHeatmap();
    void startHistogram();
    void startScatter();
    void showHistogram(const std::vector<std::size_t>& columns, const std::vector<std::vector<std::uint64_t>>& counts, double limit);
    void showScatter(const std::vector<gguf::BlockErrorPoints>& points);

    JobProgressBar* m_progress;
    QLabel* m_title;
    QComboBox* m_column;
    QLabel* m_expertLabel;
    QSpinBox* m_expert;
    ErrorHeatmapView* m_heatmap;
    QCustomPlot* m_histogram;
    QCustomPlot* m_scatter;
    QLabel* m_scatterNote;
    PlotPlaceholder* m_histogramPlaceholder;
    PlotPlaceholder* m_scatterPlaceholder;
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::shared_ptr<const gguf::ComparisonResults> m_results;
    std::size_t m_row = 0;
    bool m_hasRow = false;
    JobRunner m_histogramJobs{this};
    JobRunner m_scatterJobs{this};
};
