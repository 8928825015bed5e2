#pragma once
// One importance matrix, per model: what it covers (tensors, experts, tokens, chunks, datasets),
// how it fits the model it was opened for (every validation finding with its byte offset), the
// MoE routing map, the most important columns of each tensor and llama-imatrix's statistics.

#include "ui/session/LoadedImatrix.h"

#include <QWidget>

class ExpertRoutingMap;
class ImatrixStatisticsView;
class ImportanceStrip;
class QComboBox;
class QLabel;
class QListWidget;
class QTableWidget;

class ImatrixPage : public QWidget {
    Q_OBJECT
public:
    ImatrixPage(std::shared_ptr<const LoadedImatrix> imatrix, QWidget* parent = nullptr);
    QString title() const;

    const LoadedImatrix& imatrix() const { return *m_imatrix; }
    QLabel* summary() const { return m_summary; }
    QListWidget* issues() const { return m_issues; }
    QTableWidget* coverage() const { return m_coverage; }
    ExpertRoutingMap* routing() const { return m_routing; }
    QComboBox* tensorCombo() const { return m_tensor; }
    ImportanceStrip* columns() const { return m_columns; }
    ImatrixStatisticsView* statistics() const { return m_statistics; }

private:
    void showEntry(int index);

    std::shared_ptr<const LoadedImatrix> m_imatrix;
    QLabel* m_summary;
    QListWidget* m_issues;
    QTableWidget* m_coverage;
    ExpertRoutingMap* m_routing;
    QComboBox* m_tensor;
    ImportanceStrip* m_columns;
    ImatrixStatisticsView* m_statistics;
};
