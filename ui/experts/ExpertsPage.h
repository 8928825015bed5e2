#pragma once
// The experts of a Mixture-of-Experts model: pick a layer and a projection, see the chosen
// experts side by side (small-multiple heatmaps on one colour scale), their statistics, how
// similar they are (with the router's row norms), one statistic across all layers, the layer's
// shared experts and expert/router biases, and export one expert or the chosen set. Dense models get a clear "no experts" page instead.

#include "core/experts/ExpertIndex.h"
#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTabWidget;
class ExpertGridView;
class ExpertLayerExtrasView;
class ExpertQuantErrorView;
class ExpertScan;
class ExpertSimilarityView;
class ExpertStatisticsModel;
class ExpertStatisticsView;
class JobProgressBar;
class LayerExpertHeatmap;

class ExpertsPage : public QWidget {
    Q_OBJECT
public:
    explicit ExpertsPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    bool hasExperts() const { return m_index.hasExperts(); }
    const gguf::ExpertIndex& expertIndex() const { return m_index; }
    // The "no experts" text for dense models, or the list of inconsistencies; empty otherwise.
    QString message() const;

    // What the controls choose, for code and tests; false when the model has no such layer or the
    // layer no such projection.
    bool selectLayer(std::uint32_t layer);
    bool selectProjection(gguf::ExpertProjection projection);
    // "0-7,12" as typed in the experts box; returns why it was refused, empty when applied.
    QString setExpertSelection(const QString& text);
    const std::vector<std::uint64_t>& shownExperts() const { return m_shown; }
    const gguf::TensorInfo* currentTensor() const { return m_tensor; }
    int currentTensorIndex() const;  // in Model::tensors(), -1 for none

    // Exports `experts` of the current tensor to `path` (.npy, .csv, else raw f32) in the
    // background; returns why it cannot start, empty when started (exportFinished() follows).
    QString exportExperts(const std::vector<std::uint64_t>& experts, const QString& path);

    ExpertGridView* grid() const { return m_grid; }
    ExpertScan* scan() const { return m_scan; }
    ExpertStatisticsModel* statisticsModel() const { return m_statisticsModel; }
    ExpertStatisticsView* statisticsView() const { return m_statisticsView; }
    ExpertSimilarityView* similarity() const { return m_similarity; }
    LayerExpertHeatmap* layerHeatmap() const { return m_layerHeatmap; }
    ExpertQuantErrorView* quantError() const { return m_quantError; }
    ExpertLayerExtrasView* layerExtras() const { return m_extras; }
    QTabWidget* tabs() const { return m_tabs; }
    JobProgressBar* progress() const { return m_progress; }

    // Largest number of tiles shown side by side; more would make each too small to read.
    static constexpr std::uint64_t kMaxTiles = 64;

signals:
    // The user asked to see `expert` of tensor `tensorIndex` (in Model::tensors()) in full.
    void openExpert(int tensorIndex, int expert);
    void exportFinished(bool succeeded, const QString& message);

private:
    // In ExpertsPageExports.cpp: every chart's export, titled with model, tensor and figure.
    void installChartExports();
    QWidget* createExpertsView();
    QString noExpertsText() const;
    void populateProjections();
    void showCurrentTensor();
    void applySelectionEdit();
    void showExperts(const std::vector<std::uint64_t>& experts);
    void updateTensorLabel();
    void requestOpen(std::uint64_t expert);
    void chooseExport(const std::vector<std::uint64_t>& experts);
    void chooseSingleExport();
    const gguf::ExpertLayer* currentLayer() const;

    std::shared_ptr<const gguf::Model> m_model;
    gguf::ExpertIndex m_index;
    const gguf::TensorInfo* m_tensor = nullptr;
    std::vector<std::uint64_t> m_shown;
    bool m_userChoseExperts = false;
    std::optional<gguf::ExpertProjection> m_layerHeatmapProjection;

    QStackedWidget* m_stack;
    QLabel* m_noExperts;
    QLabel* m_warnings;
    QComboBox* m_layer = nullptr;
    QComboBox* m_projection = nullptr;
    QLineEdit* m_selection = nullptr;
    QLabel* m_tensorLabel = nullptr;
    QTabWidget* m_tabs = nullptr;
    JobProgressBar* m_progress;
    JobRunner m_exportJobs{this};  // expert exports, side by side
    ExpertScan* m_scan;
    ExpertGridView* m_grid = nullptr;
    ExpertStatisticsModel* m_statisticsModel;
    ExpertStatisticsView* m_statisticsView = nullptr;
    ExpertSimilarityView* m_similarity = nullptr;
    LayerExpertHeatmap* m_layerHeatmap = nullptr;
    ExpertQuantErrorView* m_quantError = nullptr;
    ExpertLayerExtrasView* m_extras = nullptr;
    const gguf::ExpertLayer* m_extrasLayer = nullptr;
};
