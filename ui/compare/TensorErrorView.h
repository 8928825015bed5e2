#pragma once
// One tensor of a comparison in detail: the error heatmap for a chosen column, the signed error
// histograms of every column overlaid on shared bins, and per-block RMS error against the
// block's scale for the chosen column (simulated columns are quantized in memory for it). For an
// expert tensor all three show the chosen expert, or all of them (the heatmap with each expert's
// rows marked and labelled). Each plot exports, titled with tensor, expert, columns and reference.
// Everything is computed on the job pool; a newer tensor or column makes older results stale.

#include "core/compare/ErrorDistribution.h"
#include "core/compare/ModelComparison.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <memory>
#include <optional>

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
    // For a 3-D expert tensor: the expert the heatmap, the histograms and the scatter show, -1 for
    // all of them (the heatmap one under the other, boundaries marked and labelled). Ignored for
    // other tensors.
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
    void showScatter(const std::vector<gguf::BlockErrorPoints>& points, const std::vector<gguf::ElementRange>& ranges);
    // The readout of the block drawn nearest the pointer (within a few pixels): its index in the
    // tensor, its weights, its scale and its error; empty between points.
    QString scatterReadout(double x, double y) const;
    // The expert the picker shows, none for "all" or a tensor without experts.
    std::optional<std::uint64_t> shownExpert() const;
    QString expertSuffix(const QString& text) const;
    QString exportTitle(const QString& chart, const std::vector<std::size_t>& columns) const;

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
    struct ScatterPoint {
        double scale = 0.0;
        double rmsError = 0.0;
        std::uint64_t firstWeight = 0;  // the block's first element in the tensor
    };
    std::vector<ScatterPoint> m_scatterPoints;  // as drawn (the graph keeps them sorted by scale)
    std::uint32_t m_scatterBlockSize = 0;
};
