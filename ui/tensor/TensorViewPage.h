#pragma once
// Everything about one tensor: heatmap, value distribution, block scales, block inspector and
// row values, an expert picker for 3-D expert tensors, and exports. All heavy work runs as
// background jobs shown in one progress bar with a Cancel button.

#include "ui/session/JobRunner.h"
#include "ui/session/SliceRef.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QSpinBox;
class QTabWidget;
class QToolButton;
class BlockInspector;
class BlockScalesView;
class DistributionView;
class HeatmapView;
class JobProgressBar;
class RowValuesView;

class TensorViewPage : public QWidget {
    Q_OBJECT
public:
    explicit TensorViewPage(QWidget* parent = nullptr);
    void setTensor(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor);
    const SliceRef& slice() const { return m_slice; }
    // Shows expert `expert` of the current expert tensor (ignored for other tensors).
    void selectExpertIndex(int expert);

    HeatmapView* heatmap() const { return m_heatmap; }
    DistributionView* distribution() const { return m_distribution; }
    RowValuesView* rowValues() const { return m_rowValues; }
    BlockScalesView* blockScales() const { return m_blockScales; }
    BlockInspector* inspector() const { return m_inspector; }
    QTabWidget* tabs() const { return m_tabs; }

    // Starts an export of the current slice to `path` (format from the suffix: .npy, .csv, else
    // raw f32); returns an error text when it cannot start.
    QString exportSlice(const QString& path);
    // The plot on the current tab (for Block scales: the histograms or the map, whichever is
    // shown); nullptr on tabs without one. `what` gets a short name for file names.
    QCustomPlot* currentPlot(QString* what = nullptr) const;
    // Where "Export › Current plot" proposes to save: tensor and plot name, last export folder.
    QString proposedPlotPath() const;
    // What exported plots carry as their title: tensor, file, type.
    QString plotTitle() const;
    // Saves the current plot to `path` with plotTitle(); an error text, empty on success.
    QString exportCurrentPlot(const QString& path);

signals:
    void exportFinished(bool succeeded, const QString& message);

private:
    void selectExpert(int expert);
    void updateHeader();
    void chooseSliceExport();
    void choosePlotExport();
    QString modelPath() const;

    std::shared_ptr<const gguf::Model> m_model;
    const gguf::TensorInfo* m_tensor = nullptr;
    SliceRef m_slice;
    QLabel* m_header;
    QSpinBox* m_expert;
    QLabel* m_expertLabel;
    QTabWidget* m_tabs;
    JobProgressBar* m_progress;
    JobRunner m_exportJobs{this};
    HeatmapView* m_heatmap;
    DistributionView* m_distribution;
    RowValuesView* m_rowValues;
    BlockScalesView* m_blockScales;
    BlockInspector* m_inspector;
};
