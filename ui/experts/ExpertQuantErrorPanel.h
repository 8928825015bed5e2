#pragma once
// Each expert's error figures as the Experts page's Quantization error tab and the Compare page's
// Experts tab show them: a row of controls ending in the metric picker, a message line, and the
// table (one row per expert, sortable by each metric's value) beside a grouped bar chart of the
// chosen metric (ExpertQuantErrorChart.h), which follows the model and the picker. The owner
// fills the model, the metric choices and the message.

#include "ui/session/ExpertQuantErrorModel.h"

#include <QBrush>
#include <QList>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

class ExpertQuantErrorPanel : public QWidget {
    Q_OBJECT
public:
    // `leadingControls` come first in the controls row, before the metric picker.
    explicit ExpertQuantErrorPanel(const QList<QWidget*>& leadingControls = {}, QWidget* parent = nullptr);

    ExpertQuantErrorModel* model() const { return m_model; }
    QComboBox* metricCombo() const { return m_metric; }
    QLabel* message() const { return m_message; }
    QTableView* table() const { return m_table; }
    QCustomPlot* plot() const { return m_plot; }
    // The chart again, for what the model holds now (after the owner changed the metric itself).
    void updateChart();
    // The colour of each model column (the same as on the owner's other charts); set before or
    // with the model's columns.
    void setColumnBrushes(const QList<QBrush>& brushes);

private:
    QComboBox* m_metric;
    QLabel* m_message;
    ExpertQuantErrorModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QCustomPlot* m_plot;
    QList<QBrush> m_brushes;
};
