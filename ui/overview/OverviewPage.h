#pragma once
// The first page of an open model: what it is (architecture, name, parameters, size, bits per
// weight, context, layers, experts), how the file is laid out (tensors, shards, GGUF version,
// byte order, alignment), and two charts: bytes per tensor type, and bytes per layer stacked by
// type, where the layers a mixed quantization keeps at higher precision stand out.

#include "core/analysis/LayerBreakdown.h"
#include "core/gguf/Model.h"

#include <QColor>
#include <QHash>
#include <QWidget>
#include <memory>

class QCustomPlot;
class QFormLayout;
class QLabel;
class QMouseEvent;

class OverviewPage : public QWidget {
    Q_OBJECT
public:
    // `model` must not be null. Everything is computed here: the summary and the layer breakdown
    // are one pass over the tensor index, fast even for thousands of tensors.
    explicit OverviewPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    // nullptr for a model without tensors.
    QCustomPlot* typePlot() const { return m_typePlot; }
    QCustomPlot* layerPlot() const { return m_layerPlot; }

private:
    QWidget* createModelFacts();
    QWidget* createFileFacts();
    QLabel* addFact(QFormLayout* form, const QString& name, const QString& value, const char* objectName);
    QCustomPlot* createTypePlot();
    QCustomPlot* createLayerPlot();
    void showTypeToolTip(QMouseEvent* event);
    void showLayerToolTip(QMouseEvent* event);
    QString layerLabel(const gguf::LayerBytes& layer) const;

    std::shared_ptr<const gguf::Model> m_model;
    gguf::ModelSummary m_summary;
    gguf::LayerBreakdown m_layers;
    QHash<std::uint32_t, QColor> m_typeColors;  // the same colour for a type in both charts
    QCustomPlot* m_typePlot = nullptr;
    QCustomPlot* m_layerPlot = nullptr;
};
