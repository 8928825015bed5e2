#pragma once
// The dequantized matrix as a heatmap: reduced to screen resolution with a chosen aggregate while
// dequantizing, recomputed for the visible region after zoom or pan (down to one cell per
// weight), diverging colours centred on zero, hover shows row, column and value.

#include "HeatmapReducer.h"
#include "session/SliceRef.h"

#include <QPointer>
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;
class QTimer;
class BackgroundJob;
class JobProgressBar;

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    HeatmapView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setSlice(const SliceRef& slice);
    QCustomPlot* plot() const { return m_plot; }

    // What is on screen, for tests and exports: the grid and its cells (row-major).
    const gguf::HeatmapGrid& grid() const { return m_shownGrid; }
    const std::vector<float>& cells() const;
    bool isComputing() const;

signals:
    void heatmapReady();
    void cellClicked(std::uint64_t row, std::uint64_t column);

protected:
    // A new size may allow more cells: recompute the visible region once resizing settles.
    void resizeEvent(QResizeEvent* event) override;

private:
    void requestRegion(const gguf::HeatmapRegion& region);
    void requestVisibleRegion();
    void display(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells);
    void showHover(QMouseEvent* event);
    gguf::CellAggregate aggregate() const;
    QString cacheKey(const gguf::HeatmapGrid& grid) const;

    JobProgressBar* m_progress;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QComboBox* m_aggregate;
    QLabel* m_hover;
    QTimer* m_zoomDebounce;
    SliceRef m_slice;
    QPointer<BackgroundJob> m_job;
    gguf::HeatmapGrid m_shownGrid;
    std::shared_ptr<const std::vector<float>> m_shownCells;
    bool m_settingRange = false;
};
