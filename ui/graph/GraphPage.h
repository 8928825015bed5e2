#pragma once
// The model as a graph, top to bottom, as Netron and Model Explorer draw one: the embedding, one
// node per block (click it to see its steps: norms, projections, rope, attention, router,
// experts, recurrent mixer, residual adds), the final norm and the head. Nodes are coloured by
// their type, bits per weight, or any per-tensor figure a page of the window has measured for
// this model (weight error, scan KLD, imatrix importance: the TensorFigureStore), with a legend.
// Clicking a step opens its tensor on the Tensors page. Ctrl+wheel zooms, dragging pans.

#include "core/graph/GraphLayout.h"
#include "core/graph/ModelGraph.h"
#include "ui/session/TensorFigures.h"

#include <QColor>
#include <QWidget>
#include <memory>
#include <set>
#include <vector>

class GraphLegend;
class GraphNodeItem;
class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;

class GraphPage : public QWidget {
    Q_OBJECT
public:
    explicit GraphPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    // What is drawn (for tests and the report): node i of the shown graph.
    int nodeCount() const { return static_cast<int>(m_items.size()); }
    QString nodeLabel(int node) const;
    QColor nodeColour(int node) const;
    QPointF nodeCentre(int node) const;  // in scene coordinates
    const gguf::ModelGraph& shownGraph() const { return m_shown; }
    QGraphicsView* view() const { return m_view; }
    QComboBox* colourChoice() const { return m_colourBy; }

    void setLayerExpanded(int layer, bool expanded);
    void expandAll();
    void collapseAll();
    // The colour of `value` on the scale from `minimum` to `maximum` (log when `logarithmic`).
    static QColor scaleColour(double value, double minimum, double maximum, bool logarithmic);

signals:
    void openTensor(int tensorIndex);  // index into Model::tensors()

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuildScene();
    void refreshColourChoices();
    void recolour();
    void nodeClicked(int node);
    void showNodeMenu(int node, QPoint screenPos);
    QString tooltipOf(const gguf::GraphNode& node) const;

    std::shared_ptr<const gguf::Model> m_model;
    QString m_modelPath;
    gguf::ModelGraph m_graph;  // every step
    gguf::ModelGraph m_shown;  // with the collapsed layers as blocks
    gguf::GraphLayout m_layout;
    std::set<int> m_expanded;
    std::vector<std::shared_ptr<const TensorFigureSet>> m_figureSets;  // the combo's entries past the two fixed ones
    QComboBox* m_colourBy;
    GraphLegend* m_legend;
    QLabel* m_summary;
    QGraphicsScene* m_scene;
    QGraphicsView* m_view;
    std::vector<GraphNodeItem*> m_items;
};
