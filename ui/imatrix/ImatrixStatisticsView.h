#pragma once
// llama-imatrix's statistics (--show-statistics) as two sortable tables: one row per tensor
// (Σ(Act²), min, max, μ, σ, % active, N, entropy, ZD, CosSim) and one per layer (the weighted
// averages), each figure in its own right-aligned column with the decimals llama-imatrix prints
// and sorted by value. The entries it has no statistics for are listed under them, and the
// tool's own text is one click away (Copy as Text) for comparing with its log.

#include "core/imatrix/ImatrixStatistics.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

class ImatrixStatisticsView : public QWidget {
    Q_OBJECT
public:
    // `label` names the matrix in the copied text, as llama-imatrix names its file.
    ImatrixStatisticsView(const gguf::ImatrixStatistics& statistics, const QString& label, QWidget* parent = nullptr);

    QTableWidget* tensorTable() const { return m_tensors; }
    QTableWidget* layerTable() const { return m_layers; }
    QLabel* skippedLabel() const { return m_skipped; }
    // What Copy as Text puts on the clipboard: llama-imatrix's table, line for line.
    QString llamaImatrixText() const { return m_text; }

private:
    QTableWidget* m_tensors;
    QTableWidget* m_layers;
    QLabel* m_skipped;
    QPushButton* m_copy;
    QString m_text;
};
