#pragma once
// A tensor-shaped matrix as a zoomable heatmap: reduced to screen resolution with a chosen cell
// aggregate, recomputed for the visible region after zoom, pan or resize (debounced, clamped to
// the matrix, down to one cell per element), the grid's rows split into bands on the job pool,
// diverging colours centred on zero, and the value under the mouse. What fills the matrix comes
// from a subclass: the weight heatmap (dequantized values) and the error heatmap (a comparison
// cell) are thin users of this view.

#include "analysis/HeatmapReducer.h"
#include "base/Result.h"
#include "session/JobTracker.h"

#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;
class QTimer;
class JobProgressBar;

class ZoomableMatrixView : public QWidget {
    Q_OBJECT
public:
    // Fills `out` with grid rows [first, last); runs on a pool thread, so it owns what it reads.
    using BandWork = std::function<gguf::Status(const gguf::HeatmapGrid& grid, std::uint32_t first, std::uint32_t last, std::span<float> out,
                                                const std::atomic<bool>* cancelled)>;

    struct Options {
        QString plotName;       // object name of the plot, for tests
        QString aggregateName;  // object name of the aggregate combo box
        QString scaleLabel;     // the colour bar's label
        QString aggregateTip;   // tool tip of the aggregate combo box
        QString hoverName;      // object name of the hover label
        std::vector<std::pair<QString, gguf::CellAggregate>> aggregates;
        int bandsPerThread = 8;  // grid bands per pool thread: more keep the pool busy on uneven rows
    };

    ZoomableMatrixView(JobProgressBar* progress, const Options& options, QWidget* parent = nullptr);

    // Screen cells per axis are at least this many (default 64) even on a small widget.
    void setMinimumCells(std::uint32_t cells) { m_minimumCells = cells; }
    // Computes `region` of the matrix (clamped to the current grid limits); a newer request
    // makes every older one stale.
    void requestRegion(const gguf::HeatmapRegion& region);
    QCustomPlot* plot() const { return m_plot; }

    // What is on screen, for tests and exports: the grid and its cells (row-major).
    const gguf::HeatmapGrid& grid() const { return m_shownGrid; }
    const std::vector<float>& cells() const;
    bool isComputing() const;

signals:
    void heatmapReady();

protected:
    // The whole matrix, as rows × columns; empty (rowEnd == 0) when there is nothing to show.
    virtual gguf::HeatmapRegion extent() const = 0;
    // How to fill bands of the current matrix; called on the GUI thread for each request.
    virtual BandWork bandWork() const = 0;
    // Progress bar text of a request.
    virtual QString jobDescription() const = 0;
    // Cache key for a computed grid of the current matrix, or empty to compute every time.
    virtual QString cacheKey(const gguf::HeatmapGrid&) const { return {}; }
    // The hover line for the element (row, column); `exact` when one cell is one element.
    virtual QString hoverText(double row, double column, float value, bool exact) const = 0;

    // The subclass's matrix changed: drops what is shown and the jobs under way (their results
    // are stale), then computes the whole new matrix if extent() is not empty.
    void matrixChanged();
    QString aggregateLabel() const;
    QLabel* hoverLabel() const { return m_hover; }

    void resizeEvent(QResizeEvent* event) override;

private:
    bool hasMatrix() const;
    void requestVisibleRegion();
    void display(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells);
    void showHover(QMouseEvent* event);

    JobProgressBar* m_progress;
    int m_bandsPerThread;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QComboBox* m_aggregate;
    QLabel* m_hover;
    QTimer* m_zoomDebounce;
    std::uint32_t m_minimumCells = 64;
    JobTracker m_jobs;
    gguf::HeatmapGrid m_shownGrid;
    std::shared_ptr<const std::vector<float>> m_shownCells;
    bool m_settingRange = false;
};
