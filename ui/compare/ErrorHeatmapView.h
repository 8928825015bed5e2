#pragma once
// The error of one comparison cell (column minus reference) as a heatmap, reduced to screen
// resolution with a chosen aggregate while the rows are reconstructed, recomputed for the
// visible region after zoom or pan (down to one cell per weight), on a diverging scale centred on
// zero. The same interaction as HeatmapView, over gguf::reduceErrorHeatmapRows.

#include "HeatmapReducer.h"
#include "ModelComparison.h"

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

class ErrorHeatmapView : public QWidget {
    Q_OBJECT
public:
    ErrorHeatmapView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column);
    // Screen cells per axis are at least this many (default 64) even on a small widget.
    void setMinimumCells(std::uint32_t cells) { m_minimumCells = cells; }
    void requestRegion(const gguf::HeatmapRegion& region);
    QCustomPlot* plot() const { return m_plot; }

    const gguf::HeatmapGrid& grid() const { return m_shownGrid; }
    const std::vector<float>& cells() const { return m_shownCells; }
    bool isComputing() const;

signals:
    void heatmapReady();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void requestVisibleRegion();
    void display(const gguf::HeatmapGrid& grid, std::vector<float> cells);
    void showHover(QMouseEvent* event);
    bool hasCell() const;

    JobProgressBar* m_progress;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QComboBox* m_aggregate;
    QLabel* m_hover;
    QTimer* m_zoomDebounce;
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::size_t m_row = 0;
    std::size_t m_column = 0;
    std::uint32_t m_minimumCells = 64;
    QPointer<BackgroundJob> m_job;
    gguf::HeatmapGrid m_shownGrid;
    std::vector<float> m_shownCells;
    bool m_settingRange = false;
};
