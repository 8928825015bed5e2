#pragma once
// Error per layer: one line per compared file or simulated type across blk.N, for a chosen metric
// and tensor kind, so a person sees which layers and kinds suffer most at a given quant level.
// A layer's figure is that of all its tensors together, combined in core (layerErrorMetrics) as
// the metric table says: exactly from the sums for most metrics; for the percentiles, which
// cannot be recombined, the worst tensor's value, and the axis says so.

#include "core/compare/ModelComparison.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QCustomPlot;
class PlotPlaceholder;

class LayerErrorChart : public QWidget {
    Q_OBJECT
public:
    explicit LayerErrorChart(QWidget* parent = nullptr);
    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison,
                       std::shared_ptr<const gguf::ComparisonResults> results);
    void setMetric(int metric);  // index into comparisonMetrics()
    void setKind(const QString& kind);  // empty: all kinds
    QCustomPlot* plot() const { return m_plot; }
    // What covers the chart when it has nothing to read (no results yet, no error at all).
    QString placeholderText() const;

private:
    void rebuild();

    QComboBox* m_metric;
    QComboBox* m_kind;
    QCustomPlot* m_plot;
    PlotPlaceholder* m_placeholder;
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::shared_ptr<const gguf::ComparisonResults> m_results;
};
