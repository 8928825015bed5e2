#pragma once
// The per-layer view of a diff: one bar per layer (blk.N) of the chosen figure over the layer's
// compared tensors (relative RMSE, RMSE, max |error| or 1 - cosine), so a fine-tune's change per
// layer shows at a glance, and an "other" bar at the right for the tensors outside the layers
// (embeddings, output); layers whose tensors all kept their bytes have no bar. The layer axis
// labels whole layer numbers and "other"; the figure's axis starts at zero with room above the
// tallest bar, and the mouse zooms and drags the layer axis only. Without a bar above zero the
// chart says why in words.

#include "core/diff/ModelDiff.h"

#include <QWidget>
#include <optional>

class QComboBox;
class QCustomPlot;
class PlotPlaceholder;

class LayerDiffChart : public QWidget {
    Q_OBJECT
public:
    enum class Figure { RelativeRmse, Rmse, MaxAbsError, CosineDistance };
    explicit LayerDiffChart(QWidget* parent = nullptr);

    void setDiff(const gguf::ModelDiff* diff);
    // What the two files are, for the title of an exported chart ("Diff: a.gguf ↔ b.gguf").
    void setExportSubject(const QString& subject) { m_exportSubject = subject; }
    QComboBox* figureCombo() const { return m_figure; }
    QCustomPlot* plot() const { return m_plot; }
    // The bars drawn for layers: (layer, value), in layer order.
    QList<QPointF> bars() const { return m_bars; }
    // The "other" bar (tensors outside blk.N) and where it stands on the layer axis (one past
    // the last layer); nullopt when those tensors all kept their bytes.
    std::optional<double> otherBar() const { return m_other; }
    double otherKey() const { return m_otherKey; }
    // What covers the chart when there are no bars to read (no diff yet, no layer differs).
    QString placeholderText() const;
    static double figureOf(const gguf::ErrorMetrics& metrics, Figure figure);

private:
    void rebuild();

    const gguf::ModelDiff* m_diff = nullptr;
    QComboBox* m_figure;
    QCustomPlot* m_plot;
    QList<QPointF> m_bars;
    std::optional<double> m_other;
    double m_otherKey = 0.0;
    PlotPlaceholder* m_placeholder;
    QString m_exportSubject;
};
