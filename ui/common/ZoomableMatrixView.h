#pragma once
// A tensor-shaped matrix as a zoomable heatmap: reduced to screen resolution with a chosen cell
// aggregate, recomputed for the visible region after zoom, pan or resize (debounced, clamped to
// the matrix, down to one cell per element), the grid's rows split into bands on the job pool,
// diverging colours centred on zero, and the value under the mouse. What fills the matrix comes
// from a subclass: the weight heatmap (dequantized values) and the error heatmap (a comparison
// cell) are thin users of this view.
//
// A finished view stays finished: only what the user does (another matrix, zoom, pan, the
// aggregate, a larger window) starts work, never the view's own layout. A resize asks for work
// only when the new size needs more cells than are shown or on their way, so a progress bar or
// label that changes the layout cannot start a computation that changes the layout again. A
// cancelled or failed request stays so, behind a placeholder that recomputes when clicked.
// Zoom is limited to the matrix (out) and one element (in); double-click or "Reset zoom" shows
// the whole matrix; "Lock colour scale" keeps the colour range across zoom levels. A matrix of
// one row is drawn as a line over its columns (a 1-D tensor has no second axis to colour).
// The colour bar ends at the 99.9th percentile of |value| unless the user picks the full range
// or types one (ColourRangeBox); NaN cells are left undrawn over a hatch. The value under the
// mouse is the line under the plot.

#include "core/analysis/HeatmapReducer.h"
#include "core/base/Result.h"
#include "ui/session/JobRunner.h"

#include <QSharedPointer>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPRange;
class QCustomPlot;
class QPushButton;
class QCPAxisTicker;
class QToolButton;
class QCPColorMap;
class QCPColorScale;
class QLabel;
class QTimer;
class JobProgressBar;
class PlaceholderText;
class ColourRangeBox;

class ZoomableMatrixView : public QWidget {
    Q_OBJECT
public:
    // The source rows or columns one shown cell stands for, first and last included: the
    // reducer's cell (gguf::heatmapCellStart), so a readout never names a row the value is not
    // of. Zoomed out, one cell is the aggregate of several.
    struct CellSpan {
        std::uint64_t first = 0;
        std::uint64_t last = 0;
        bool single() const { return first == last; }
    };
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
        QString emptyText;       // the placeholder while there is no matrix ("Select a tensor…")
    };

    // What the view shows: a placeholder (Empty, Computing the first grid, Cancelled, Failed)
    // or the plot (Shown; a zoom under way keeps the plot).
    // NeedsFetch: the region's bytes are on a server and more than fetchThreshold() of them are
    // not here yet; the placeholder says how much and fetches on a click (a remote model).
    enum class State { Empty, Computing, Shown, Cancelled, Failed, NeedsFetch };

    ZoomableMatrixView(JobProgressBar* progress, const Options& options, QWidget* parent = nullptr);

    // Screen cells per axis are at least this many (default 64) even on a small widget.
    void setMinimumCells(std::uint32_t cells) { m_minimumCells = cells; }
    // Computes `region` of the matrix (clamped to the current grid limits); a newer request
    // makes every older one stale.
    void requestRegion(const gguf::HeatmapRegion& region);
    QCustomPlot* plot() const { return m_plot; }
    State state() const { return m_state; }
    // The placeholder's text and button (object name "<plotName>Placeholder"); a click on it
    // computes again after a cancel or a failure.
    QString placeholderText() const;
    QPushButton* placeholder() const { return m_placeholder; }
    // Above this many bytes still on the server, a region waits for a click (default 64 MiB).
    void setFetchThreshold(std::uint64_t bytes) { m_fetchThreshold = bytes; }
    std::uint64_t fetchThreshold() const { return m_fetchThreshold; }
    // Jobs started since construction: what a test counts to see that an idle view stays idle.
    int jobsStarted() const { return m_jobsStarted; }

    // Shows the whole matrix (double-click on the plot and the "Reset zoom" button do this).
    void resetZoom();
    // Keeps the colour range of what is shown now for every later zoom level and aggregate of
    // this matrix (another matrix starts from its own range).
    void setColourScaleLocked(bool locked);
    bool isColourScaleLocked() const;
    // How the colour bar is stretched (full range, a percentile, manual).
    ColourRangeBox* colourRangeBox() const { return m_colourRange; }
    // The colour bar's range (a line plot: its value axis).
    QCPRange colourRange() const;
    // One-row matrices are drawn as this line graph instead of the colour map; null otherwise.
    QCPGraph* lineGraph() const;
    // Row boundaries marked (see setRowBoundaries), and the labels of the parts between them.
    std::size_t rowBoundaryCount() const { return m_boundaries.size(); }
    QStringList rowBoundaryLabels() const;

    // What is on screen, for tests and exports: the grid and its cells (row-major).
    const gguf::HeatmapGrid& grid() const { return m_shownGrid; }
    const std::vector<float>& cells() const;
    bool isComputing() const;
    // The words over a grid of zeros, empty otherwise.
    QString allZeroNote() const;

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
    // The hover line for the cell under the pointer: its rows and columns and its value.
    virtual QString hoverText(CellSpan rows, CellSpan columns, float value) const = 0;
    // "row 7" or "rows 6–9": `one` and `many` are the words for one and for several.
    static QString spanText(const QString& one, const QString& many, CellSpan span);
    // Said over the plot when every cell shown is 0 (a white map reads as "nothing there").
    virtual QString allZeroText() const;
    // Bytes computing `region` would fetch from a server now (gguf::mappedBytesToFetch); 0 when
    // the matrix is local or already here.
    virtual std::uint64_t bytesToFetch(const gguf::HeatmapRegion&) const { return 0; }

    // Marks every `rows`-th row boundary with a line (expert boundaries of a flattened expert
    // tensor) and labels each part with `label` (%1: its index), "expert %1" by default; 0 for
    // none. Kept until the next matrixChanged().
    void setRowBoundaries(std::uint64_t rows);
    void setRowBoundaryLabel(const QString& label) { m_boundaryLabel = label; }
    // Sets the Empty placeholder's text (e.g. why a cell cannot be shown).
    void setEmptyText(const QString& text);

    // The subclass's matrix changed: drops what is shown and the jobs under way (their results
    // are stale), then computes the whole new matrix if extent() is not empty.
    void matrixChanged();
    QString aggregateLabel() const;
    QLabel* hoverLabel() const { return m_hover; }

    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool hasMatrix() const;
    bool isLine() const;
    gguf::HeatmapRegion visibleRegion() const;
    gguf::HeatmapGrid gridFor(const gguf::HeatmapRegion& region) const;
    void requestVisibleRegion();
    void refineAfterResize();
    void startJob(const gguf::HeatmapGrid& grid, const QString& key);
    void display(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells);
    void displayLine(const gguf::HeatmapGrid& grid, const std::vector<float>& values);
    void clampRanges();
    void unlockColourScale();
    // Abs max is a magnitude: a one-sided scale from zero.
    bool isOneSided() const;
    void applyMapRange(const std::vector<float>& values);
    void applyColourRange();
    void setState(State state, const QString& text = {});
    void clearRowBoundaries();
    void showHover(QMouseEvent* event);

    JobProgressBar* m_progress;
    int m_bandsPerThread;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPGraph* m_line;
    QSharedPointer<QCPAxisTicker> m_rowTicker;    // integer ticks: rows
    QSharedPointer<QCPAxisTicker> m_valueTicker;  // a line's values
    QPushButton* m_placeholder;
    PlaceholderText* m_placeholderText;  // wrapped: a long error fits a narrow plot
    QLabel* m_allZeroNote;      // over a shown grid whose every cell is 0
    QComboBox* m_aggregate;
    QToolButton* m_resetZoom;
    QCheckBox* m_lockScale;
    ColourRangeBox* m_colourRange;
    QLabel* m_hover;
    QTimer* m_zoomDebounce;
    QTimer* m_resizeDebounce;
    std::uint32_t m_minimumCells = 64;
    JobRunner m_jobs{this};
    gguf::HeatmapGrid m_shownGrid;
    gguf::HeatmapGrid m_pendingGrid;  // of the running job
    State m_state = State::Empty;
    QString m_emptyText;
    QString m_stateText;
    int m_jobsStarted = 0;
    std::uint64_t m_fetchThreshold = 64ull << 20;
    bool m_fetchApproved = false;  // the user clicked "fetch" for this matrix
    std::vector<QCPItemStraightLine*> m_boundaries;
    std::vector<QCPItemText*> m_boundaryLabels;
    QString m_boundaryLabel = tr("expert %1");
    std::shared_ptr<const std::vector<float>> m_shownCells;
    bool m_settingRange = false;
};
