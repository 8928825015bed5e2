#pragma once
// The quantizer's choices for one tensor: histograms of the effective per-block scales and
// mins, and a heatmap of scales by block position (row × sub-block column).

#include "ScaleOverview.h"
#include "session/SliceRef.h"
#include "session/JobTracker.h"

#include <QPointer>
#include <QWidget>
#include <optional>

class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QLabel;
class BackgroundJob;
class JobProgressBar;

class BlockScalesView : public QWidget {
    Q_OBJECT
public:
    BlockScalesView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setSlice(const SliceRef& slice);
    QCustomPlot* histogramPlot() const { return m_histograms; }
    QCustomPlot* heatmapPlot() const { return m_heatmap; }
    const std::optional<gguf::ScaleOverview>& overview() const { return m_overview; }

signals:
    void overviewReady();
    // A click on the scale heatmap: the block under the cursor, for the inspector.
    void blockClicked(std::uint64_t row, std::uint64_t blockInRow);

private:
    void display();

    JobProgressBar* m_progress;
    QLabel* m_message;
    QCustomPlot* m_histograms;
    QCPBars* m_scaleBars;
    QCPBars* m_minBars;
    QCustomPlot* m_heatmap;
    QCPColorMap* m_map;
    SliceRef m_slice;
    JobTracker m_jobs;
    std::optional<gguf::ScaleOverview> m_overview;
};
