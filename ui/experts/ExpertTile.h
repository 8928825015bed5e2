#pragma once
// One expert as a small heatmap titled with its index and figures (rms, max |w|). Colours come
// from a range the grid shares between all tiles, so tiles compare at a glance. A click (or Enter
// when focused) asks to open the expert; the context menu offers open and export.

#include "core/analysis/HeatmapReducer.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPRange;
class QCPTextElement;

class ExpertTile : public QWidget {
    Q_OBJECT
public:
    ExpertTile(std::uint64_t expert, QWidget* parent = nullptr);
    std::uint64_t expert() const { return m_expert; }

    void setHeatmap(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells);
    void setFigures(double rms, double maxAbs);
    void setError(const QString& error);
    void setColorRange(const QCPRange& range);

    bool hasHeatmap() const { return m_cells != nullptr; }
    const gguf::HeatmapGrid& grid() const { return m_grid; }
    const std::vector<float>& cells() const;
    QString title() const;
    QCustomPlot* plot() const { return m_plot; }

signals:
    void openRequested(std::uint64_t expert);
    void exportRequested(std::uint64_t expert);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    // The hover readout of the cell under (x, y): the rows and columns it holds and its value.
    QString readout(double x, double y) const;
    void updateTitle();

    std::uint64_t m_expert;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPTextElement* m_title;
    gguf::HeatmapGrid m_grid;
    std::shared_ptr<const std::vector<float>> m_cells;
    std::optional<std::pair<double, double>> m_figures;  // rms, max |w|
    QString m_error;
};
