#pragma once
// The error of one comparison cell (column minus reference) as a heatmap (see
// ZoomableMatrixView), over gguf::reduceErrorHeatmapRows, on a scale centred on zero.

#include "compare/ModelComparison.h"
#include "common/ZoomableMatrixView.h"

#include <memory>

class ErrorHeatmapView : public ZoomableMatrixView {
    Q_OBJECT
public:
    ErrorHeatmapView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column);

protected:
    gguf::HeatmapRegion extent() const override;
    BandWork bandWork() const override;
    QString jobDescription() const override;
    QString hoverText(double row, double column, float value, bool exact) const override;

private:
    bool hasCell() const;

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::size_t m_row = 0;
    std::size_t m_column = 0;
};
