#pragma once
// The per-expert statistics table (sortable) beside a bar chart of rms by expert; both follow
// the ExpertStatisticsModel as results arrive. Double-clicking a row asks to open that expert.

#include <QWidget>

class QCustomPlot;
class QCPBars;
class QSortFilterProxyModel;
class QTableView;
class ExpertStatisticsModel;

class ExpertStatisticsView : public QWidget {
    Q_OBJECT
public:
    ExpertStatisticsView(ExpertStatisticsModel* model, QWidget* parent = nullptr);
    QTableView* table() const { return m_table; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QCustomPlot* rmsPlot() const { return m_plot; }
    QCPBars* rmsBars() const { return m_bars; }

signals:
    void openRequested(std::uint64_t expert);

private:
    void updateChart();

    ExpertStatisticsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QCustomPlot* m_plot;
    QCPBars* m_bars;
};
