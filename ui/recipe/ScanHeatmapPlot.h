#pragma once
// The sensitivity heatmap: a scan's groups as layers (rows, downward) x roles (columns) for one
// candidate type, each cell coloured by its mean KLD on a logarithmic scale (the figures span
// several decades between the first block and the middle ones), empty cells (a skipped block,
// a role the layer lacks, a probe not measured yet) left as a grey hatch. The cell under the
// mouse gives its figures in a tooltip and in hoverText().

#include "core/sensitivity/ScanGrid.h"

#include <QWidget>
#include <memory>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;

class ScanHeatmapPlot : public QWidget {
    Q_OBJECT
public:
    explicit ScanHeatmapPlot(QWidget* parent = nullptr);

    // Shows `type` of `record` (kept alive here); null clears the plot.
    void show(std::shared_ptr<const gguf::ScanRecord> record, std::uint32_t type);
    const gguf::ScanGrid& grid() const { return m_grid; }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_map; }
    // The figures of the cell at (row, column) of grid(), or empty for an empty cell.
    QString cellText(std::size_t row, std::size_t column) const;
    // The cell under a point of the plot widget, as cellText; empty outside the cells.
    QString textAt(const QPoint& position) const;
    QString hoverText() const;

private:
    void showHover(const QPoint& position, const QPoint& global);

    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QLabel* m_hover;
    std::shared_ptr<const gguf::ScanRecord> m_record;
    gguf::ScanGrid m_grid;
};
