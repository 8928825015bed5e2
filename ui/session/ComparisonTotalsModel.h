#pragma once
// The model-wide rows of a comparison table: "all tensors" (exactly the CLI's totals) and one
// row per tensor kind, with the same columns as ComparisonTableModel so the two tables line up.
// A separate model so that sorting and filtering the tensors never moves or hides the totals.

#include "core/compare/SummaryErrorMetrics.h"

#include <QAbstractTableModel>
#include <memory>

class ComparisonTotalsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit ComparisonTotalsModel(QObject* parent = nullptr);

    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison);
    void setResults(std::shared_ptr<const gguf::ComparisonResults> results);
    void setMetric(int metric);
    // Row 0 is every tensor; the others one kind each (empty until results arrive).
    const std::vector<gguf::SummaryErrorMetrics>& summaries() const { return m_summaries; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::vector<gguf::SummaryErrorMetrics> m_summaries;
    int m_metric = 0;
};
