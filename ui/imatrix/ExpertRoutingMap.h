#pragma once
// How often each expert of each MoE layer was routed during calibration, as a layers × experts
// map (colour: share of an even split, on a log scale, so an expert that got 3% of its share
// stands out as much as one that got 30x), with every never or rarely routed expert marked and
// listed: their importance rests on few tokens or none, so their quantization was near blind.
// Hovering a cell tells its tokens and share.

#include "core/imatrix/ExpertRouting.h"

#include <QWidget>

class QCPColorMap;
class QCustomPlot;
class QLabel;
class QListWidget;

class ExpertRoutingMap : public QWidget {
    Q_OBJECT
public:
    explicit ExpertRoutingMap(QWidget* parent = nullptr);
    void setRouting(const gguf::ExpertRouting& routing);

    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* map() const { return m_map; }
    QListWidget* rareList() const { return m_rare; }
    int markerCount() const { return m_markers; }  // "!" and "*" labels on the map
    // What hovering the cell of `expert` in row `row` (top to bottom) of the map says; empty
    // outside the map.
    QString cellText(int expert, int row) const;

private:
    void showCellUnder(const QPoint& position);

    gguf::ExpertRouting m_routing;
    QLabel* m_summary;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QListWidget* m_rare;
    int m_markers = 0;
};
