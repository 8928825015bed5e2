#pragma once
// One statistic of every expert in every MoE layer, as a layers × experts heatmap for one
// projection. A single background job computes all (layer, expert) statistics in parallel and
// the map fills in as they finish (redrawn a few times a second, not once per cell); each
// expert's mapped file pages are released once read, so a model of a hundred layers does not
// pile up gigabytes of resident memory; switching the statistic only redraws. Work starts when the
// view is first shown for a projection (it reads every expert of every layer).

#include "core/experts/ExpertAnalysis.h"
#include "ui/session/ExpertStatisticKind.h"
#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"
#include "ui/session/PartialResults.h"

#include <QPointer>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;
class QTimer;
class JobProgressBar;
class StartWhenShown;

class LayerExpertHeatmap : public QWidget {
    Q_OBJECT
public:
    struct LayerTensor {
        std::uint32_t layer = 0;
        const gguf::TensorInfo* tensor = nullptr;
    };

    LayerExpertHeatmap(JobProgressBar* progress, QWidget* parent = nullptr);
    // The projection's expert tensor of each layer, in layer order.
    void setTensors(std::shared_ptr<const gguf::Model> model, std::vector<LayerTensor> layers);
    void setStatistic(ExpertStatisticKind kind);

    std::size_t layerCount() const { return m_layers.size(); }
    std::uint64_t expertCount() const { return m_expertCount; }
    // The result for (layer row, expert), once computed.
    const std::optional<gguf::ExpertStatistics>& result(std::size_t layerRow, std::uint64_t expert) const;
    bool isComputing() const;
    QCustomPlot* plot() const { return m_plot; }
    QComboBox* statisticCombo() const { return m_statistic; }

signals:
    void statisticsReady();

private:
    using Results = PartialResults<gguf::ExpertStatistics>;
    void start();
    void collect();
    void collectAndDisplay();
    void display();
    void showHover(QMouseEvent* event);
    ExpertStatisticKind statistic() const;

    JobProgressBar* m_progress;
    QComboBox* m_statistic;
    QLabel* m_message;
    QLabel* m_hover;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    std::shared_ptr<const gguf::Model> m_model;
    std::vector<LayerTensor> m_layers;
    std::uint64_t m_expertCount = 0;
    StartWhenShown* m_startWhenShown;
    QTimer* m_redraw;  // draws the cells a running job finished, at most once per interval
    JobRunner m_jobs{this, JobPriority::Background};
    std::shared_ptr<Results> m_pending;  // filled by the workers of the current job
    std::vector<std::optional<gguf::ExpertStatistics>> m_results;  // layer row × expert, collected on this thread
};
