#pragma once
// Small multiples: one ExpertTile per chosen expert in a scrolling grid, all on one symmetric
// colour scale (shown once above the grid) that widens as results arrive, so the same colour
// means the same weight in every tile.

#include "core/experts/ExpertAnalysis.h"
#include "core/analysis/HeatmapReducer.h"

#include <QWidget>
#include <functional>
#include <map>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPColorScale;
class QCPRange;
class QGridLayout;
class QLabel;
class ExpertTile;

class ExpertGridView : public QWidget {
    Q_OBJECT
public:
    explicit ExpertGridView(QWidget* parent = nullptr);

    // Replaces the tiles with empty ones for `experts`, keeping nothing from before.
    void setExperts(const std::vector<std::uint64_t>& experts);
    void showHeatmap(std::uint64_t expert, const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells);
    void showStatistics(const gguf::ExpertStatistics& statistics);
    void showError(std::uint64_t expert, const QString& error);
    void setMessage(const QString& message);
    // The export title of a tile's heatmap (its context menu's "Export Chart…").
    void setTileExportTitle(std::function<QString(std::uint64_t expert)> title) { m_tileTitle = std::move(title); }

    ExpertTile* tile(std::uint64_t expert) const;
    std::vector<ExpertTile*> tiles() const;  // in expert order
    // The largest |cell| over the tiles shown so far: the scale is [-colorLimit, colorLimit].
    double colorLimit() const { return m_colorLimit; }

signals:
    void openRequested(std::uint64_t expert);
    void exportRequested(std::uint64_t expert);

private:
    void applyColorLimit();

    QLabel* m_message;
    QCustomPlot* m_scalePlot;
    QCPColorScale* m_scale;
    QWidget* m_tileArea;
    QGridLayout* m_tileLayout;
    std::map<std::uint64_t, ExpertTile*> m_tiles;
    std::function<QString(std::uint64_t)> m_tileTitle;
    double m_colorLimit = 0.0;
};
