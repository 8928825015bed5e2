#pragma once
// The quantizer's choices for one tensor: histograms of the effective per-block scales and
// mins, each on its own axes (mins are often far larger than scales and would squeeze them into
// a sliver), and a heatmap of scales by block position (row × sub-block column). The two plots
// are tabs, so "the current plot" is always the one on screen.

#include "core/blocks/ScaleOverview.h"
#include "ui/session/SliceRef.h"
#include "ui/session/JobRunner.h"
#include "ui/common/PlotReadout.h"

#include <QPointer>
#include <QWidget>
#include <functional>
#include <vector>
#include <optional>

class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QCPAxisRect;
class QLabel;
class QTabWidget;
class BackgroundJob;
class JobProgressBar;
class PlotPlaceholder;

class BlockScalesView : public QWidget {
    Q_OBJECT
public:
    BlockScalesView(JobProgressBar* progress, QWidget* parent = nullptr);
    ~BlockScalesView() override;
    void setSlice(const SliceRef& slice);
    QCustomPlot* histogramPlot() const { return m_histograms; }
    QCustomPlot* heatmapPlot() const { return m_heatmap; }
    QCustomPlot* minHeatmapPlot() const { return m_minHeatmap; }
    // The plot on screen: the histograms, the scale map or the min map.
    QCustomPlot* visiblePlot() const;
    QTabWidget* plotTabs() const { return m_plots; }
    const std::optional<gguf::ScaleOverview>& overview() const { return m_overview; }
    // What covers the plots while they have nothing to show; empty when they are shown.
    QString placeholderText() const;

signals:
    void overviewReady();
    // A click on the scale heatmap: the block under the cursor, for the inspector.
    void blockClicked(std::uint64_t row, std::uint64_t blockInRow);

private:
    void display();
    // The hover readouts: a histogram's bin (scales or mins, by the panel under the pointer) and
    // a map cell with the rows and sub-block columns it is the mean of.
    QString histogramReadout(const plotreadout::Pointer& at) const;
    QString mapReadout(const plotreadout::Pointer& at, bool mins) const;
    QCPColorMap* setUpMap(QCustomPlot* plot);
    void fillMap(QCustomPlot* plot, QCPColorMap* map, const std::vector<float>& grid);
    // The same sentence over the histograms and both maps (null retry: not clickable).
    void showPlaceholders(const QString& text, const std::function<void()>& retry = {});
    void hidePlaceholders();

    JobProgressBar* m_progress;
    QLabel* m_message;
    QCustomPlot* m_histograms;
    QCPBars* m_scaleBars;
    QCPBars* m_minBars;
    QCPAxisRect* m_minRect;
    QTabWidget* m_plots;
    QCustomPlot* m_heatmap;
    QCPColorMap* m_map;
    QCustomPlot* m_minHeatmap;
    QCPColorMap* m_minMap;
    SliceRef m_slice;
    JobRunner m_jobs{this};
    std::optional<gguf::ScaleOverview> m_overview;
    std::vector<PlotPlaceholder*> m_placeholders;
};
