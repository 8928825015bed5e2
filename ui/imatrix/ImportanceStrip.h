#pragma once
// Importance per input column of one tensor (llama-quantize's quant_weights: the mean squared
// activation) as a plot under the weight heatmap, on the heatmap's column axis: it follows the
// heatmap's zoom and pan and lines its plot area up with the heatmap's, so a column the
// quantizer protects sits right under that column of weights. On its own (the importance page)
// it has its own column axis: every column, numbered, zoomed and dragged with the mouse. The most
// important columns are listed under it.

#include "ui/session/LoadedImatrix.h"

#include <QWidget>
#include <optional>

class QCPGraph;
class QCustomPlot;
class PlotPlaceholder;
class QLabel;
class QListWidget;

namespace gguf {
struct TensorInfo;
}

class ImportanceStrip : public QWidget {
    Q_OBJECT
public:
    static constexpr int kTopColumns = 12;

    explicit ImportanceStrip(QWidget* parent = nullptr);

    // Follows `heatmapPlot`'s x axis (range and plot-area margins) from now on.
    void followColumnAxis(QCustomPlot* heatmapPlot);
    void setImatrix(std::shared_ptr<const LoadedImatrix> imatrix);
    const LoadedImatrix* imatrix() const { return m_imatrix.get(); }
    // Shows `tensor` (nullopt expert: every expert pooled). Without an entry for it, says so.
    void showTensor(const gguf::TensorInfo* tensor, std::optional<std::size_t> expert);
    // Shows an entry directly (no tensor to check it against), e.g. on the imatrix page.
    void showEntry(const gguf::ImportanceEntry& entry, std::optional<std::size_t> expert);

    const std::vector<float>& values() const { return m_values; }
    QCustomPlot* plot() const { return m_plot; }
    QListWidget* topColumns() const { return m_top; }
    QString statusText() const;
    // The words over the plot while it has no values, empty when it shows them.
    QString placeholderText() const;

private:
    void alignWith(QCustomPlot* heatmapPlot);
    void plotValues();

    bool m_followsHeatmap = false;

    std::shared_ptr<const LoadedImatrix> m_imatrix;
    std::vector<float> m_values;
    QLabel* m_status;
    QCustomPlot* m_plot;
    QCPGraph* m_graph;
    PlotPlaceholder* m_placeholder;
    QListWidget* m_top;
};

class TensorViewPage;

// The hook into the Tensors page: puts a strip under `page`'s heatmap (once; later calls only
// change the matrix) and keeps it on the tensor and expert the page shows. Returns the strip.
ImportanceStrip* attachImportanceStrip(TensorViewPage* page, std::shared_ptr<const LoadedImatrix> imatrix);
